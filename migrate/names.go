package migrate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// generationName matches the names dsh gives a session's generations:
// session.jsonl (v0) and session.v<N>.jsonl in its store, and
// session.<K>.jsonl / session.<K>.v<N>.jsonl for the other sessions of a
// snapshot directory; ".zstd" follows for a compressed generation.
var generationName = regexp.MustCompile(`^(session(?:\.(?:0|[1-9][0-9]*))?)(?:\.v([1-9][0-9]*))?\.jsonl(\.zstd)?$`)

// GenerationOf returns the format version a file name states, and whether
// the name is one dsh gives a generation. A version that is named must be
// the header's.
func GenerationOf(base string) (int, bool) {
	m := generationName.FindStringSubmatch(base)
	if m == nil {
		return 0, false
	}
	if m[2] == "" {
		return 0, true
	}
	v, err := strconv.Atoi(m[2])
	if err != nil || v > maxSafeInteger {
		return 0, false
	}
	return v, true
}

// PublishedName returns the name of the current generation that migrating
// the file named base publishes beside it: session.v4.jsonl for dsh's
// session.jsonl and session.v<N>.jsonl, session.<K>.v4.jsonl in a snapshot
// directory, and <stem>.v4.jsonl for any other <stem>.jsonl; the ".zstd"
// suffix stays.
func PublishedName(base string) string {
	if m := generationName.FindStringSubmatch(base); m != nil {
		return m[1] + ".v" + strconv.Itoa(currentVersion) + ".jsonl" + m[3]
	}
	stem, suffix := base, ""
	for _, ext := range []string{".jsonl.zstd", ".jsonl.zst", ".jsonl.gz", ".jsonl"} {
		if len(stem) > len(ext) && stem[len(stem)-len(ext):] == ext {
			stem, suffix = stem[:len(stem)-len(ext)], ext
			break
		}
	}
	if suffix == ".jsonl.gz" || suffix == "" {
		suffix = ".jsonl"
	}
	if m := trailingVersion.FindStringIndex(stem); m != nil {
		stem = stem[:m[0]]
	}
	return stem + ".v" + strconv.Itoa(currentVersion) + suffix
}

var trailingVersion = regexp.MustCompile(`\.v[0-9]+$`)

// logFilename is dsh's name for generation v in a session directory.
func logFilename(v int, compressed bool) string {
	name := "session.jsonl"
	if v > 0 {
		name = "session.v" + strconv.Itoa(v) + ".jsonl"
	}
	if compressed {
		name += ".zstd"
	}
	return name
}

// encodeSegment is dsh's path segment for a session id: every UTF-16 code
// unit outside [A-Za-z0-9._-] becomes ~XXXX, and "." and ".." are escaped.
func encodeSegment(id string) string {
	switch id {
	case ".":
		return "~002E"
	case "..":
		return "~002E~002E"
	}
	var b strings.Builder
	for _, u := range codeUnits(id) {
		if isSafeUnit(u) {
			b.WriteByte(byte(u))
		} else {
			fmt.Fprintf(&b, "~%04X", u)
		}
	}
	return b.String()
}

// projectDirName is dsh's project directory for a session's cwd:
// separators become one "-", other unsafe code units ~XXXX, a leading "-"
// goes, and the key is wrapped as --key-- (_no-cwd without a cwd).
func projectDirName(cwd *string) string {
	if cwd == nil {
		return "_no-cwd"
	}
	var b strings.Builder
	run := false
	for _, u := range codeUnits(*cwd) {
		switch {
		case u == '/' || u == '\\' || u == ':':
			if !run {
				b.WriteByte('-')
			}
			run = true
		case isSafeUnit(u):
			b.WriteByte(byte(u))
			run = false
		default:
			fmt.Fprintf(&b, "~%04X", u)
			run = false
		}
	}
	slug := strings.TrimLeft(b.String(), "-")
	if slug == "" {
		slug = "root"
	}
	if len(slug) > 251 {
		slug = slug[:251]
	}
	return "--" + slug + "--"
}

func isSafeUnit(u uint16) bool {
	return u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9' || u == '.' || u == '_' || u == '-')
}

// codeUnits returns the UTF-16 code units of s, reading a lone surrogate in
// the generalized UTF-8 form jsonv keeps it in.
func codeUnits(s string) []uint16 {
	var units []uint16
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 && i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			units = append(units, 0xD000|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F))
			i += 3
			continue
		}
		units = utf16.AppendRune(units, r)
		i += size
	}
	return units
}
