package fold

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// planKind says what a validated event does to the surface.
type planKind uint8

const (
	planLogOnly planKind = iota
	planAppend
	planReplace
	planProject
)

// plan is a validated surface transition that has not touched the fold yet.
type plan struct {
	kind      planKind
	op        session.SurfaceOp
	startIdx  int
	endIdx    int
	projected []projectedMessage
}

// projectedMessage is a projection's new message for one current node.
type projectedMessage struct {
	seq     int64
	message jsonv.Value
}

// plan validates ev against the current surface in dsh's order
// (planSurfaceEvent, surface.ts@103e8703): contiguity, surface metadata,
// the developer header, projections, then the replace guards.
func (f *Fold) plan(ev session.Event) (plan, error) {
	if ev.Seq != f.next {
		return plan{}, refusef("session event seq %d is not contiguous; expected %d", ev.Seq, f.next)
	}
	op, err := surfaceOpOf(ev, f.vocab)
	if err != nil {
		return plan{}, err
	}
	if op.Kind == session.OpReplace && (op.StartSeq >= ev.Seq || op.EndSeq >= ev.Seq) {
		return plan{}, refusef("surface replace at seq %d: startSeq and endSeq must reference earlier events", ev.Seq)
	}
	if op.Kind != session.OpNone {
		if err := checkSources(ev, nil); err != nil {
			return plan{}, err
		}
	}
	if ev.Type == typeDeveloper {
		if err := f.checkDeveloperHeader(ev); err != nil {
			return plan{}, err
		}
	}
	// image/offload is dsh's one message projection; dshlog always carries
	// its interpreter, as a dsh with the image-offload plugin loaded does.
	if ev.Type == typeImageOffload {
		projected, err := f.projectImageOffload(ev)
		if err != nil {
			return plan{}, err
		}
		return plan{kind: planProject, projected: projected}, nil
	}
	switch op.Kind {
	case session.OpNone:
		return plan{kind: planLogOnly}, nil
	case session.OpAppend:
		return plan{kind: planAppend, op: op}, nil
	}
	return f.planReplace(ev, op)
}

// planReplace checks a replace in dsh's order: the range, coverage of every
// shadowed node by sourceEventSeqs, the tool-result rewrite rule, then the
// system prompt at node 0.
func (f *Fold) planReplace(ev session.Event, op session.SurfaceOp) (plan, error) {
	startIdx := f.indexOf(op.StartSeq)
	if startIdx < 0 {
		return plan{}, refusef("surface replace: start seq %d not found in surface", op.StartSeq)
	}
	endIdx := f.indexOf(op.EndSeq)
	if endIdx < 0 {
		return plan{}, refusef("surface replace: end seq %d not found in surface", op.EndSeq)
	}
	if startIdx > endIdx {
		return plan{}, refusef("surface replace: start seq %d (index %d) is after end seq %d (index %d)", op.StartSeq, startIdx, op.EndSeq, endIdx)
	}
	shadowed := f.nodes[startIdx : endIdx+1]
	if err := checkSources(ev, shadowed); err != nil {
		return plan{}, err
	}
	if ev.Type == typeToolResult {
		if err := checkToolResultRewrite(ev, shadowed); err != nil {
			return plan{}, err
		}
	}
	if startIdx == 0 && f.nodes[0].Type == typeSystem && (ev.Type != typeSystem || len(shadowed) != 1) {
		return plan{}, refusef("surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node")
	}
	return plan{kind: planReplace, op: op, startIdx: startIdx, endIdx: endIdx}, nil
}

// commit applies a validated plan.
func (f *Fold) commit(ev session.Event, p plan) {
	switch p.kind {
	case planAppend:
		n := f.newNode(ev)
		f.nodes = append(f.nodes, n)
		if n.Visible {
			f.visible++
		}
	case planReplace:
		shadowed := make([]int64, 0, p.endIdx-p.startIdx+1)
		for _, n := range f.nodes[p.startIdx : p.endIdx+1] {
			shadowed = append(shadowed, n.Seq)
			if n.Visible {
				f.visible--
			}
		}
		n := f.newNode(ev)
		if n.Visible {
			f.visible++
		}
		f.nodes[p.startIdx] = n
		f.nodes = append(f.nodes[:p.startIdx+1], f.nodes[p.endIdx+1:]...)
		f.replaceGeneration++
		f.contentGeneration++
		f.replacements = append(f.replacements, Replacement{
			Seq: ev.Seq, StartSeq: p.op.StartSeq, EndSeq: p.op.EndSeq, ShadowedSeqs: shadowed,
			ReplaceGeneration: f.replaceGeneration, ContentGeneration: f.contentGeneration,
		})
	case planProject:
		for _, pm := range p.projected {
			i := f.indexOf(pm.seq)
			f.nodes[i].Message = pm.message
			if f.summarize != nil {
				f.nodes[i].setSummary(f.summarize(f.nodes[i].Type, pm.message))
			}
		}
		f.contentGeneration++
	}
}

// indexOf returns the surface position of seq, or -1.
func (f *Fold) indexOf(seq int64) int {
	for i, n := range f.nodes {
		if n.Seq == seq {
			return i
		}
	}
	return -1
}

// newNode derives the node a surface event becomes (deriveEventMessage):
// a user message is its data verbatim, a tool result its message even when
// empty, and a system, developer or assistant message nothing when its
// content is empty. Everything is read from the row first; the node then
// keeps its own undecoded copy of the message bytes (and, for a tool
// result, of its data without content, all the rewrite guard compares), so
// the row, an assistant's embedded stream included, can be dropped. A fold
// that summarizes keeps the summary instead of the copy, unless the
// message holds an image block.
func (f *Fold) newNode(ev session.Event) Node {
	data := ev.Data()
	n := Node{Seq: ev.Seq, Type: ev.Type}
	message := data.Field("message")
	switch ev.Type {
	case typeUser:
		message = data
	case typeToolResult:
		// Written where the last one was, then copied: one allocation of
		// the exact size, however long the data.
		f.scratch = appendWithoutContent(f.scratch[:0], data)
		n.more = &nodeMore{toolRest: bytes.Clone(f.scratch)}
	}
	n.Visible = truthy(message)
	if ev.Type != typeUser && ev.Type != typeToolResult && hasEmptyLength(message.Field("content")) {
		n.Visible = false
	}
	n.setRole(message.Field("role").Text())
	if f.summarize != nil {
		n.setSummary(f.summarize(ev.Type, message))
		if !hasImageBlock(message) {
			return n // no projection can target it: offloadImages finds no image in null
		}
	}
	n.Message = jsonv.Detach(message)
	return n
}

// setRole sets the node's role: one of dsh's by its code, another as a
// copy of its own, never a string sharing the row's text.
func (n *Node) setRole(text string) {
	if i := slices.Index(roleNames[:], text); i >= 0 {
		n.role = role(i)
		return
	}
	n.role = roleOther
	n.ensureMore().role = strings.Clone(text)
}

// setSummary sets the node's summary; an empty one needs no nodeMore.
func (n *Node) setSummary(summary string) {
	if summary == "" && n.more == nil {
		return
	}
	n.ensureMore().summary = summary
}

// ensureMore returns the node's nodeMore, making it when there is none.
func (n *Node) ensureMore() *nodeMore {
	if n.more == nil {
		n.more = &nodeMore{}
	}
	return n.more
}

// hasImageBlock reports whether a message's content holds a block of type
// image, which an image/offload projection may rewrite. A content whose
// text quotes no "image" has none; the others' blocks are looked at
// without decoding them.
func hasImageBlock(message jsonv.Value) bool {
	content := message.Field("content")
	if !content.MayHoldString("image") {
		return false
	}
	for _, block := range content.Elements() {
		if typ, _ := block.Peek("type"); typ.Text() == "image" {
			return true
		}
	}
	return false
}

// hasEmptyLength reports whether JavaScript's v.length === 0 holds: an empty
// array or an empty string.
func hasEmptyLength(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.Array:
		return v.Len() == 0
	case jsonv.String:
		return v.Text() == ""
	}
	return false
}

// surfaceOpOf validates an event's surface metadata (surfaceOpOf,
// surface.ts@103e8703) and returns its operation; v is the vocabulary of
// the build that wrote the log.
func surfaceOpOf(ev session.Event, v *vocab.Vocabulary) (session.SurfaceOp, error) {
	rawOp, hasOp := ev.Row.Get("surfaceOp")
	if !IsSurfaceEligible(ev.Type) {
		if ev.Ignorable() && !v.Has(ev.Type) {
			return session.SurfaceOp{}, nil // opaque: its metadata is never looked at
		}
		if hasOp {
			return session.SurfaceOp{}, refusef(`session event "%s" is not surface-eligible and cannot carry surfaceOp`, ev.Type)
		}
		if ev.Row.Has("sourceEventSeqs") {
			return session.SurfaceOp{}, refusef(`session event "%s" is not surface-eligible and cannot carry sourceEventSeqs`, ev.Type)
		}
		return session.SurfaceOp{}, nil
	}
	if !hasOp {
		return session.SurfaceOp{}, refusef(`session event "%s" is surface-eligible and requires a surfaceOp marker`, ev.Type)
	}
	if s, ok := rawOp.Str(); ok && s == "append" {
		return session.SurfaceOp{Kind: session.OpAppend}, nil
	}
	if rawOp.Kind() != jsonv.Object {
		return session.SurfaceOp{}, refusef(`session event "%s" carries an invalid surfaceOp`, ev.Type)
	}
	op := session.ParseSurfaceOp(rawOp, true)
	if op.Kind != session.OpReplace {
		return session.SurfaceOp{}, refusef(`session event "%s" carries an invalid replace surfaceOp`, ev.Type)
	}
	return op, nil
}

// checkSources validates sourceEventSeqs (assertSourceEventReferences,
// surface.ts@103e8703) and, for a replace, that it cites every shadowed
// node. A physical [start, end] range counts as the seqs it spans.
func checkSources(ev session.Event, shadowed []Node) error {
	raw, present := ev.Row.Get("sourceEventSeqs")
	if ev.Type == typeAssistant && present {
		return refusef("assistant/message embeds its source stream and cannot carry sourceEventSeqs")
	}
	var seqs []int64
	if present {
		if raw.Kind() != jsonv.Array {
			return refusef("sourceEventSeqs on event at seq %d must be an array when present", ev.Seq)
		}
		var buf [8]int64 // most events cite a seq or two: no allocation
		expanded, ok := expandSources(raw, buf[:0])
		if len(expanded) == 0 && ok {
			return refusef("sourceEventSeqs must not be empty")
		}
		if !ok {
			return refusef(`session event "%s" sourceEventSeqs must densely contain non-negative safe integers`, ev.Type)
		}
		if hasDuplicate(expanded) {
			return refusef("sourceEventSeqs must not contain duplicates")
		}
		for _, s := range expanded {
			if s >= ev.Seq {
				return refusef("sourceEventSeqs must reference earlier events: %d >= current seq %d", s, ev.Seq)
			}
		}
		seqs = expanded
	}
	if len(shadowed) == 0 {
		return nil
	}
	sources := make(map[int64]bool, len(seqs))
	for _, s := range seqs {
		sources[s] = true
	}
	var missing []string
	for _, n := range shadowed {
		if !sources[n.Seq] {
			missing = append(missing, strconv.FormatInt(n.Seq, 10))
		}
	}
	if len(missing) > 0 {
		return refusef("surface replace: sourceEventSeqs must include every shadowed surface node; missing %s", strings.Join(missing, ", "))
	}
	return nil
}

// hasDuplicate reports whether a seq occurs twice in seqs: by comparing
// pairs in a short list, by sorting a copy in a long one.
func hasDuplicate(seqs []int64) bool {
	if len(seqs) <= 16 {
		for i, s := range seqs {
			if slices.Contains(seqs[i+1:], s) {
				return true
			}
		}
		return false
	}
	sorted := slices.Clone(seqs)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return true
		}
	}
	return false
}

// expandSources appends to seqs the expansion of a sourceEventSeqs list
// whose members are seqs or [start, end] ranges; ok is false when a member
// is neither.
func expandSources(raw jsonv.Value, seqs []int64) (_ []int64, ok bool) {
	for _, member := range raw.Elements() {
		if member.Kind() == jsonv.Array {
			start, ok1 := member.Index(0).Count()
			end, ok2 := member.Index(1).Count()
			if member.Len() != 2 || !ok1 || !ok2 || end < start {
				return seqs, false
			}
			for s := start; s <= end; s++ {
				seqs = append(seqs, s)
			}
			continue
		}
		s, isSeq := member.Count()
		if !isSeq {
			return seqs, false
		}
		seqs = append(seqs, s)
	}
	return seqs, true
}

// checkToolResultRewrite applies dsh's rule for a tool/result replace: it
// rewrites exactly one current tool/result and changes only its content.
func checkToolResultRewrite(ev session.Event, shadowed []Node) error {
	if len(shadowed) != 1 {
		return refusef("tool/result surface replacement must rewrite exactly one current node")
	}
	original := shadowed[0]
	if original.Type != typeToolResult {
		return refusef("tool/result surface replacement must target a current tool/result")
	}
	rest, err := jsonv.Parse(original.more.toolRest)
	if err != nil { // cannot happen: the text is jsonv's own encoding
		return refusef("tool/result surface replacement may change only content")
	}
	if !jsform.DeepEqual(rest, withoutContent(ev.Data())) {
		return refusef("tool/result surface replacement may change only content")
	}
	return nil
}

// withoutContent returns tool-result data with message.content nulled, the
// form in which an original and its rewrite must agree.
func withoutContent(data jsonv.Value) jsonv.Value {
	message := data.Field("message")
	if !isRecord(message) {
		message = jsonv.ObjectValue()
	}
	if !isRecord(data) {
		data = jsonv.ObjectValue()
	}
	return data.With("message", message.With("content", jsonv.NullValue()))
}

// appendWithoutContent appends the JSON text of withoutContent(data) to dst,
// writing the members as they are instead of building the object first.
func appendWithoutContent(dst []byte, data jsonv.Value) []byte {
	return appendWith(dst, data, "message", func(dst []byte, message jsonv.Value) []byte {
		return appendWith(dst, message, "content", func(dst []byte, _ jsonv.Value) []byte {
			return append(dst, "null"...)
		})
	})
}

// appendWith appends the JSON text of {...v, [key]: set(v[key])}, with the
// rules of jsonv.Value.With: a non-object v counts as {}, an existing key
// keeps its position and a new one comes last (key is never an array
// index here). set is given the member's current value, or null.
func appendWith(dst []byte, v jsonv.Value, key string, set func([]byte, jsonv.Value) []byte) []byte {
	dst = append(dst, '{')
	members := v.Members() // nil when v is not an object
	found := false
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendString(dst, m.Key)
		dst = append(dst, ':')
		if m.Key == key {
			dst = set(dst, m.Value)
			found = true
			continue
		}
		dst = m.Value.Append(dst)
	}
	if !found {
		if len(members) > 0 {
			dst = append(dst, ',')
		}
		dst = jsonv.AppendString(dst, key)
		dst = append(dst, ':')
		dst = set(dst, jsonv.NullValue())
	}
	return append(dst, '}')
}
