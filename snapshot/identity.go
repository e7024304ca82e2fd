package snapshot

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// identities is dsh's relationship-preserving id redaction
// (redactSessionSnapshotIds): ids found by where they stand or by their
// shape become typed placeholders {{kind:N}}, numbered by first sight, and
// every later spelling of the same id, also inside text, becomes the same
// placeholder. Ids written in one of the IDFormats keep their own ordinal.
type identities struct {
	formats []idFormat
	tokens  map[string]string // id → placeholder
	pending []claimed         // ids without an ordinal yet, in first-seen order
	seen    map[string]bool   // ids pending
	highest map[string]int    // highest ordinal taken, by kind

	// The matchers that find ids inside text, built by assign: ids holding
	// a UUID by that UUID, ids in one of the formats by the format, and the
	// few others by one pattern.
	byUUID   map[string][]uuidSource
	inFormat []*regexp.Regexp
	others   *regexp.Regexp
	uuidLike map[string]bool
}

// uuidSource is an id that holds a UUID at offset.
type uuidSource struct {
	id     string
	offset int
}

// idMatch is an id found in text at [start, end).
type idMatch struct {
	start, end int
	id         string
}

// claimed is an id waiting for its ordinal.
type claimed struct{ id, kind string }

func newIdentities(formats []idFormat) *identities {
	return &identities{
		formats: formats,
		tokens:  map[string]string{},
		seen:    map[string]bool{},
		highest: map[string]int{},
	}
}

var (
	uuidFragment   = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	legacyToken    = regexp.MustCompile(`^\{\{(?:sessionId|messageId)\}\}$`)
	canonicalToken = regexp.MustCompile(`^\{\{([A-Za-z]+):([1-9][0-9]*)\}\}$`)
	worktreeID     = regexp.MustCompile(`^wt-[0-9a-f]{8}$`)
	commitID       = regexp.MustCompile(`^[0-9a-f]{40}$`)
	idKey          = regexp.MustCompile(`(?:^id$|Id$|Ids$)`)
	asMessage      = regexp.MustCompile(`(?i)\bas message ([0-9a-f-]{36})\b`)
	anonymousUser  = regexp.MustCompile(`(?i)\bAnonymous user: ([0-9a-f-]{36})\b`)
	worktreeInText = regexp.MustCompile(`\bwt-[0-9a-f]{8}\b`)
	hexRun         = regexp.MustCompile(`[0-9a-fA-F]{40,}`)
)

// sessionKeys are the fields whose ids are session ids.
var sessionKeys = map[string]bool{"sessionId": true, "parentSessionId": true, "rootSessionId": true, "childId": true}

// claim records id as an id of kind. Unless always, only a value shaped
// like a generated id (a UUID inside, a placeholder, a worktree or commit
// id, or one of the IDFormats) is an id.
func (ids *identities) claim(id, kind string, always bool) {
	if id == "" || ids.tokens[id] != "" || ids.seen[id] {
		return
	}
	if m := canonicalToken.FindStringSubmatch(id); m != nil {
		ids.take(id, m[1], atoi(m[2]))
		return
	}
	if k, n, ok := ordinalOf(ids.formats, id); ok {
		ids.take(id, k, n)
		return
	}
	intrinsic := ""
	switch {
	case worktreeID.MatchString(id):
		intrinsic = "worktree"
	case commitID.MatchString(id):
		intrinsic = "commit"
	}
	if !always && intrinsic == "" && !uuidFragment.MatchString(id) && !legacyToken.MatchString(id) {
		return
	}
	if intrinsic != "" {
		kind = intrinsic
	}
	ids.pending = append(ids.pending, claimed{id, kind})
	ids.seen[id] = true
}

// take gives id the ordinal n of kind, which later ids of kind skip.
func (ids *identities) take(id, kind string, n int) {
	ids.tokens[id] = token(kind, n)
	ids.highest[kind] = max(ids.highest[kind], n)
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// collect claims the ids v holds; recordType is its row's type and key the
// member v is the value of.
func (ids *identities) collect(v jsonv.Value, recordType, key string) {
	switch v.Kind() {
	case jsonv.String:
		ids.collectText(v.Text(), key)
	case jsonv.Array:
		for _, e := range v.Elements() {
			ids.collect(e, recordType, key)
		}
	case jsonv.Object:
		if id, ok := messageID(v); ok {
			ids.claim(id, "message", false)
		}
		approval := recordType == "approval/asked" || recordType == "approval/decided"
		for _, m := range v.Members() {
			item := m.Value.Text()
			switch {
			case approval:
				if m.Key == "id" {
					ids.claim(item, "approval", false)
				}
			case m.Key == "commandId":
				ids.claim(item, "command", true)
			case m.Key == "rpcId":
				ids.claim(item, "rpc", true)
			case m.Key == "retryId":
				ids.claim(item, "retry", false)
			case m.Key == "runId":
				ids.claim(item, "workflow", false)
			case sessionKeys[m.Key]:
				ids.claim(item, "session", false)
			case idKey.MatchString(m.Key):
				ids.claim(item, "id", false)
			}
			ids.collect(m.Value, recordType, m.Key)
		}
	}
}

// collectText claims the ids dsh finds inside text: a message named "as
// message <uuid>", an anonymous feedback user, worktree ids and commit ids
// (not in a content digest).
func (ids *identities) collectText(s, key string) {
	if strings.Contains(s, "essage ") || strings.Contains(s, "ESSAGE ") {
		for _, m := range asMessage.FindAllStringSubmatch(s, -1) {
			ids.claim(m[1], "message", false)
		}
	}
	if strings.Contains(s, "ser: ") || strings.Contains(s, "SER: ") {
		for _, m := range anonymousUser.FindAllStringSubmatch(s, -1) {
			ids.claim(m[1], "id", false)
		}
	}
	if strings.Contains(s, "wt-") {
		for _, m := range worktreeInText.FindAllString(s, -1) {
			ids.claim(m, "worktree", false)
		}
	}
	if key != "digest" && len(s) >= 40 {
		for _, run := range hexRun.FindAllString(s, -1) {
			if len(run) == 40 && strings.ToLower(run) == run {
				ids.claim(run, "commit", false)
			}
		}
	}
}

// messageID is the id of a message object: one with a string id and role,
// a content array and a source object.
func messageID(v jsonv.Value) (string, bool) {
	id, ok := v.Field("id").Str()
	if !ok || v.Field("role").Kind() != jsonv.String || v.Field("content").Kind() != jsonv.Array || v.Field("source").Kind() != jsonv.Object {
		return "", false
	}
	return id, true
}

// assign numbers the pending ids of each kind after the highest ordinal
// the log already uses, in first-seen order, and prepares the replacement.
func (ids *identities) assign() {
	for _, c := range ids.pending {
		ids.highest[c.kind]++
		ids.tokens[c.id] = token(c.kind, ids.highest[c.kind])
	}
	ids.pending, ids.seen = nil, nil
	ids.byUUID, ids.uuidLike = map[string][]uuidSource{}, map[string]bool{}
	var others []string
	for id, tok := range ids.tokens {
		if id == tok {
			continue
		}
		locs := uuidFragment.FindAllStringIndex(id, -1)
		ids.uuidLike[id] = locs != nil
		for _, loc := range locs {
			fragment := id[loc[0]:loc[1]]
			ids.byUUID[fragment] = append(ids.byUUID[fragment], uuidSource{id, loc[0]})
		}
		if _, _, formatted := ordinalOf(ids.formats, id); locs == nil && !formatted {
			others = append(others, id)
		}
	}
	for _, f := range ids.formats {
		ids.inFormat = append(ids.inFormat, regexp.MustCompile(strings.TrimSuffix(strings.TrimPrefix(f.parse.String(), "^"), "$")))
	}
	if len(others) > 0 {
		slices.SortFunc(others, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
		quoted := make([]string, len(others))
		for i, id := range others {
			quoted[i] = regexp.QuoteMeta(id)
		}
		ids.others = regexp.MustCompile(strings.Join(quoted, "|"))
	}
}

// replace is s with every id in it replaced by its placeholder: s itself
// when it is an id, else each leftmost-longest occurrence not inside a
// longer word (a UUID may follow a hyphen, as in session-<uuid>; a short id
// may not).
func (ids *identities) replace(s string) string {
	if tok, ok := ids.tokens[s]; ok {
		return tok
	}
	found := ids.find(s)
	if found == nil {
		return s
	}
	slices.SortFunc(found, func(a, b idMatch) int { return cmp.Or(a.start-b.start, b.end-a.end) })
	var b strings.Builder
	cursor := 0
	for _, m := range found {
		if m.start < cursor {
			continue
		}
		guard := isWordByte
		if !ids.uuidLike[m.id] {
			guard = isWordOrHyphen
		}
		if (m.start > 0 && guard(s[m.start-1])) || (m.end < len(s) && guard(s[m.end])) {
			continue
		}
		b.WriteString(s[cursor:m.start])
		b.WriteString(ids.tokens[m.id])
		cursor = m.end
	}
	if cursor == 0 {
		return s
	}
	b.WriteString(s[cursor:])
	return b.String()
}

// find lists the places in s where an id stands.
func (ids *identities) find(s string) []idMatch {
	var found []idMatch
	if len(ids.byUUID) > 0 && len(s) >= 36 {
		for _, loc := range uuidFragment.FindAllStringIndex(s, -1) {
			for _, src := range ids.byUUID[s[loc[0]:loc[1]]] {
				start := loc[0] - src.offset
				if start >= 0 && strings.HasPrefix(s[start:], src.id) {
					found = append(found, idMatch{start, start + len(src.id), src.id})
				}
			}
		}
	}
	for _, re := range ids.inFormat {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if id := s[loc[0]:loc[1]]; ids.tokens[id] != "" && ids.tokens[id] != id {
				found = append(found, idMatch{loc[0], loc[1], id})
			}
		}
	}
	if ids.others != nil {
		for _, loc := range ids.others.FindAllStringIndex(s, -1) {
			found = append(found, idMatch{loc[0], loc[1], s[loc[0]:loc[1]]})
		}
	}
	return found
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isWordOrHyphen(c byte) bool { return c == '-' || isWordByte(c) }
