package snapshot

import (
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

	pattern  *regexp.Regexp // every id, longest first
	minLen   int            // the shortest id's length
	uuidLike map[string]bool
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
	var sources []string
	ids.uuidLike = map[string]bool{}
	for id, tok := range ids.tokens {
		if id == tok {
			continue
		}
		sources = append(sources, id)
		ids.uuidLike[id] = uuidFragment.MatchString(id)
	}
	if len(sources) == 0 {
		return
	}
	slices.SortFunc(sources, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	quoted := make([]string, len(sources))
	for i, s := range sources {
		quoted[i] = regexp.QuoteMeta(s)
	}
	ids.pattern = regexp.MustCompile(strings.Join(quoted, "|"))
	ids.minLen = len(sources[len(sources)-1])
}

// replace is s with every id in it replaced by its placeholder: s itself
// when it is an id, else each occurrence not inside a longer word (a UUID
// may follow a hyphen, as in session-<uuid>; a short id may not).
func (ids *identities) replace(s string) string {
	if tok, ok := ids.tokens[s]; ok {
		return tok
	}
	if ids.pattern == nil || len(s) < ids.minLen {
		return s
	}
	matches := ids.pattern.FindAllStringIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	cursor := 0
	for _, m := range matches {
		id := s[m[0]:m[1]]
		guard := isWordByte
		if !ids.uuidLike[id] {
			guard = isWordOrHyphen
		}
		if (m[0] > 0 && guard(s[m[0]-1])) || (m[1] < len(s) && guard(s[m[1]])) {
			continue
		}
		b.WriteString(s[cursor:m[0]])
		b.WriteString(ids.tokens[id])
		cursor = m[1]
	}
	if cursor == 0 {
		return s
	}
	b.WriteString(s[cursor:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isWordOrHyphen(c byte) bool { return c == '-' || isWordByte(c) }
