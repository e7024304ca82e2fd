package v0

import (
	"strconv"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The primitive checks of dsh's released v0/v1 codec, each refusing with
// dsh's exact words.

// Record requires a JSON object, refusing with "<label> must be a JSON
// object" (dsh's releasedV0Record).
func Record(v jsonv.Value, label string) error {
	_, err := jsform.Record(v, "%s must be a JSON object", label)
	return err
}

// ExactMembers requires every required member of object v and nothing
// outside required and optional, reporting an unexpected member before a
// missing one (dsh's assertReleasedV0Keys).
func ExactMembers(v jsonv.Value, label string, required, optional []string) error {
	if k, ok := jsform.UnexpectedKey(v, required, optional); ok {
		return session.FormatErrorf("%s has unexpected member %s", label, jsform.Quote(k))
	}
	if k, ok := jsform.MissingKey(v, required); ok {
		return session.FormatErrorf("%s lacks required member %s", label, jsform.Quote(k))
	}
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
