package v3to4

import (
	"bytes"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// isV3BlockType reports whether typ is a content block kind v3 knew; any
// other kind is namespaced.
func isV3BlockType(typ string) bool {
	switch typ {
	case "text", "reasoning", "image", "file", "tool-call", "tool-result":
		return true
	}
	return false
}

// subject names the part of an event a refusal is about. It is called only
// when there is one, so that a good event formats nothing.
type subject func() string

// index names the i-th element of the list subject names.
func (s subject) index(i int) string { return s() + "[" + itoa(int64(i)) + "]" }

// migrateBlock namespaces an unknown block kind ("plugin:" + kind, in
// place); subject names the block in refusals. Only the type tag is read,
// so a known block's other members (a long text) are not decoded.
func migrateBlock(block jsonv.Value, subject subject) (jsonv.Value, bool, error) {
	tag, _ := block.Peek("type")
	typ, ok := tag.Str()
	if block.Kind() != jsonv.Object || !ok {
		return block, false, session.FormatErrorf("%s requires content blocks with string type tags", subject())
	}
	if isV3BlockType(typ) {
		return block, false, nil
	}
	return block.With("type", jsonv.StringValue("plugin:"+typ)), true, nil
}

// migrateContent namespaces the unknown kinds of the top-level blocks of a
// content array; nested JSON stays untouched.
func migrateContent(content jsonv.Value, subject subject) (jsonv.Value, bool, error) {
	if content.Kind() != jsonv.Array {
		return content, false, session.FormatErrorf("%s content must be an array", subject())
	}
	var mapped []jsonv.Value
	for i, block := range content.Elements() {
		out, changed, err := migrateBlock(block, func() string { return subject.index(i) })
		if err != nil {
			return content, false, err
		}
		if changed && mapped == nil {
			mapped = append(make([]jsonv.Value, 0, content.Len()), content.Elements()[:i]...)
		}
		if mapped != nil {
			mapped = append(mapped, out)
		}
	}
	if mapped == nil {
		return content, false, nil
	}
	return jsonv.ArrayValue(mapped...), true, nil
}

func migrateMessage(message jsonv.Value, subject subject) (jsonv.Value, bool, error) {
	content, changed, err := migrateContent(message.Field("content"), subject)
	if err != nil || !changed {
		return message, false, err
	}
	return message.With("content", content), true, nil
}

// migrateEventContent namespaces the content and stream tags v4 does not
// know and refuses v4-only request tool fields (dsh's
// migrateV3EventContent), on the event after source rewrite and tool
// lift. The event keeps every coordinate and other member.
func migrateEventContent(ev *edit) error {
	subject := subject(func() string { return "format v3 " + ev.Type + " at seq " + itoa(ev.Seq) })
	data, changed, err := v4.MapMessages(ev.Type, ev.Data(), func(message jsonv.Value) (jsonv.Value, bool, error) {
		return migrateMessage(message, subject)
	})
	if err != nil {
		return err
	}
	if data.Kind() != jsonv.Object {
		return nil
	}
	field := func(key string) error {
		content, fieldChanged, err := migrateContent(data.Field(key), func() string { return subject() + "." + key })
		if fieldChanged {
			data, changed = data.With(key, content), true
		}
		return err
	}
	switch ev.Type {
	case "compaction/summary":
		err = field("summary")
		if _, ok := data.Get("rawOutput"); ok && err == nil {
			err = field("rawOutput")
		}
	case "tool/ptc-dispatch":
		err = field("content")
	case "team/message/queued":
		if message := data.Field("message"); message.Kind() == jsonv.Object {
			var messageChanged bool
			message, messageChanged, err = migrateMessage(message, subject)
			if messageChanged {
				data, changed = data.With("message", message), true
			}
		}
	}
	if err != nil {
		return err
	}
	if ev.Type == "request/header" {
		for i, tool := range data.Field("header").Field("tools").Elements() {
			if tool.Has("deferLoading") {
				return session.Unsupportedf("%s.header.tools[%d] contains deferLoading, which is only defined in V4", subject(), i)
			}
		}
	}
	if ev.Type == "assistant/message" || ev.Type == "assistant/attempt" {
		stream, streamChanged, err := migrateStream(data.Field("stream"), subject)
		if err != nil {
			return err
		}
		if streamChanged {
			data, changed = data.With("stream", stream), true
		}
	}
	if !changed {
		return nil
	}
	ev.set("data", data)
	return nil
}

// migrateStream namespaces the block kinds of an embedded stream's raw
// block-start and block-end chunks; packed runs and other entries stay.
// A stream in canonical text whose block chunks all name known kinds is
// passed over in one scan of its bytes (knownBlockChunks); otherwise the
// entries are only peeked at: one whose kinds are all known is not decoded.
func migrateStream(stream jsonv.Value, subject subject) (jsonv.Value, bool, error) {
	if raw := stream.Raw(); raw != nil && knownBlockChunks(raw) {
		return stream, false, nil
	}
	return migrateStreamEntries(stream, subject)
}

// migrateStreamEntries is migrateStream, entry by entry.
func migrateStreamEntries(stream jsonv.Value, subject subject) (jsonv.Value, bool, error) {
	var mapped []jsonv.Value
	for i, entry := range v4.StreamChunks(stream) {
		out, changed := entry, false
		if unknownChunkKind(entry) {
			chunk, _ := entry.Peek("chunk")
			chunk, chunkChanged, err := migrateChunk(chunk, func() string { return subject() + ".stream[" + itoa(int64(i)) + "]" })
			if err != nil {
				return stream, false, err
			}
			if chunkChanged {
				out, changed = entry.With("chunk", chunk), true
			}
		}
		if changed && mapped == nil {
			mapped = append(make([]jsonv.Value, 0, stream.Len()), stream.Elements()[:i]...)
		}
		if mapped != nil {
			mapped = append(mapped, out)
		}
	}
	if mapped == nil {
		return stream, false, nil
	}
	return jsonv.ArrayValue(mapped...), true, nil
}

// unknownChunkKind reports whether a stream entry is a chunk whose chunk
// migrateChunk may change or refuse: a block-start or block-end chunk whose
// block kind is not one v3 knows. The canonical text of the entries dsh
// writes answers without peeking.
func unknownChunkKind(entry jsonv.Value) bool {
	if unknown, sure := canonicalUnknownChunkKind(entry.Raw()); sure {
		return unknown
	}
	return isString(peekTag(entry), "chunk") && !knownChunkKinds(entry)
}

// knownChunkKinds reports whether migrateChunk would keep a chunk entry's
// chunk as it is without refusing: it is no block-start or block-end chunk,
// or the block kind it names is one v3 knows.
func knownChunkKinds(entry jsonv.Value) bool {
	var kind jsonv.Value
	switch tag, _ := entry.PeekPath("chunk", "type"); {
	case isString(tag, "block-end"):
		kind, _ = entry.PeekPath("chunk", "block", "type")
	case isString(tag, "block-start"):
		kind, _ = entry.PeekPath("chunk", "blockType")
	default:
		return true
	}
	typ, ok := kind.Str()
	return ok && isV3BlockType(typ)
}

// The canonical text of stream entries up to their type tag, and of the
// two block chunk entries dsh writes up to the block kind:
// {"type":"chunk","time":T,"chunk":{"type":"block-start","index":I,
// "blockType":"K"}} and {"type":"chunk","time":T,"chunk":{"type":
// "block-end","index":I,"block":{"type":"K",…}}}.
var (
	entryHead      = []byte(`{"type":"`)
	chunkEntryHead = []byte(`{"type":"chunk","time":`)
	blockStartHead = []byte(`,"chunk":{"type":"block-start","index":`)
	blockStartKind = []byte(`,"blockType":"`)
	blockEndHead   = []byte(`,"chunk":{"type":"block-end","index":`)
	blockEndKind   = []byte(`,"block":{"type":"`)
	blockChunkTag  = []byte(`"block-`)
)

// canonicalUnknownChunkKind is unknownChunkKind read off the canonical text
// of a stream entry (nil when the entry has none), with sure false when the
// text does not settle it. Canonical text (JSON.stringify's) has no
// repeated key and one spelling for each string, so an entry whose first
// key is type tells its tag by its first bytes, a chunk entry without a
// "block-start" or "block-end" string is no block chunk, and a block chunk
// in dsh's shape names its kind at a fixed place.
func canonicalUnknownChunkKind(raw []byte) (unknown, sure bool) {
	tag, ok := bytes.CutPrefix(raw, entryHead)
	if !ok {
		return false, false
	}
	if !bytes.HasPrefix(tag, []byte(`chunk"`)) {
		return false, true // another tag than "chunk"
	}
	rest, ok := bytes.CutPrefix(raw, chunkEntryHead)
	if !ok {
		return false, false
	}
	rest = skipNumber(rest)
	var kind, tail []byte
	switch {
	case bytes.HasPrefix(rest, blockStartHead):
		rest, ok = bytes.CutPrefix(skipNumber(rest[len(blockStartHead):]), blockStartKind)
		kind, tail, _ = bytes.Cut(rest, []byte(`"`))
		ok = ok && string(tail) == "}}"
	case bytes.HasPrefix(rest, blockEndHead):
		rest, ok = bytes.CutPrefix(skipNumber(rest[len(blockEndHead):]), blockEndKind)
		var closed bool
		kind, _, closed = bytes.Cut(rest, []byte(`"`))
		ok = ok && closed
	default:
		return false, !bytes.Contains(raw, blockChunkTag)
	}
	if !ok || bytes.IndexByte(kind, '\\') >= 0 {
		return false, false
	}
	return !isV3BlockType(string(kind)), true
}

// The block chunks as dsh writes them, after their "block- and up to the
// kind they name.
var (
	blockStartTail = []byte(`start","index":`)
	blockEndTail   = []byte(`end","index":`)
)

// knownBlockChunks reports whether migrateStream keeps, without refusing,
// a stream whose canonical text is raw, judged on the text alone: every
// "block-… string in it is a block-start or block-end chunk tag in dsh's
// shape (see canonicalUnknownChunkKind) followed by a kind v3 knows.
// Canonical text spells each string one way, so every chunk tag
// migrateStream would look at is among the strings found; a string that
// is no chunk tag only makes the answer false, sending the stream the
// slow way.
func knownBlockChunks(raw []byte) bool {
	for {
		i := bytes.Index(raw, blockChunkTag)
		if i < 0 {
			return true
		}
		rest := raw[i+len(blockChunkTag):]
		var ok bool
		switch {
		case bytes.HasPrefix(rest, blockStartTail):
			rest, ok = bytes.CutPrefix(skipNumber(rest[len(blockStartTail):]), blockStartKind)
		case bytes.HasPrefix(rest, blockEndTail):
			rest, ok = bytes.CutPrefix(skipNumber(rest[len(blockEndTail):]), blockEndKind)
		}
		if !ok {
			return false
		}
		kind, after, closed := bytes.Cut(rest, []byte(`"`))
		if !closed || !isV3BlockType(string(kind)) {
			return false
		}
		raw = after
	}
}

// skipNumber returns text after the JSON number it starts with.
func skipNumber(text []byte) []byte {
	i := 0
	for i < len(text) && (text[i] >= '0' && text[i] <= '9' || text[i] == '-' || text[i] == '+' || text[i] == '.' || text[i] == 'e' || text[i] == 'E') {
		i++
	}
	return text[i:]
}

// peekTag returns the type tag of a stream entry without decoding it.
func peekTag(v jsonv.Value) jsonv.Value {
	tag, _ := v.Peek("type")
	return tag
}

func migrateChunk(chunk jsonv.Value, subject subject) (jsonv.Value, bool, error) {
	if chunk.Kind() != jsonv.Object {
		return chunk, false, nil
	}
	tag, _ := chunk.Peek("type")
	switch {
	case isString(tag, "block-end"):
		block, _ := chunk.Peek("block")
		block, changed, err := migrateBlock(block, func() string { return subject() + ".block" })
		if err != nil || !changed {
			return chunk, false, err
		}
		return chunk.With("block", block), true, nil
	case isString(tag, "block-start"):
		blockType, _ := chunk.Peek("blockType")
		original, ok := blockType.Str()
		if !ok {
			return chunk, false, session.FormatErrorf("%s blockType must be a string", subject())
		}
		if isV3BlockType(original) {
			return chunk, false, nil
		}
		return chunk.With("blockType", jsonv.StringValue("plugin:"+original)), true, nil
	}
	return chunk, false, nil
}
