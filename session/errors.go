package session

import "fmt"

// The error classes dsh's session-format code raises; a refusal's text is
// "<Class>: <message>".
const (
	ClassFormat      = "SessionFormatError"
	ClassUnsupported = "SessionFormatUnsupportedMigrationError"
	ClassPlain       = "Error" // the JSONL layer's own errors
)

// Refusal is an error dsh itself would raise for a session, with its class
// and exact message, so dshlog can report dsh's own words.
type Refusal struct {
	Class string
	Msg   string
}

func (r *Refusal) Error() string { return r.Msg }

// Text returns the refusal as dsh prints it: "<Class>: <message>".
func (r *Refusal) Text() string { return r.Class + ": " + r.Msg }

// FormatErrorf returns a SessionFormatError refusal.
func FormatErrorf(format string, args ...any) *Refusal {
	return &Refusal{Class: ClassFormat, Msg: fmt.Sprintf(format, args...)}
}

// Unsupportedf returns a SessionFormatUnsupportedMigrationError refusal.
func Unsupportedf(format string, args ...any) *Refusal {
	return &Refusal{Class: ClassUnsupported, Msg: fmt.Sprintf(format, args...)}
}

// Plainf returns a refusal of the JSONL layer, class Error.
func Plainf(format string, args ...any) *Refusal {
	return &Refusal{Class: ClassPlain, Msg: fmt.Sprintf(format, args...)}
}
