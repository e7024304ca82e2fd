package inspect

import (
	"fmt"
	"path"
)

// Filter selects the events to show by seq range and type pattern.
type Filter struct {
	From int64 // first seq shown
	// To is the last seq shown; ToSet says whether there is one.
	To    int64
	ToSet bool
	// Types are glob patterns (path.Match syntax, "tool/*"); an event is
	// shown when its type matches any of them, or always when there are none.
	Types []string
}

// Check reports a malformed type pattern.
func (f Filter) Check() error {
	for _, pattern := range f.Types {
		if _, err := path.Match(pattern, ""); err != nil {
			return fmt.Errorf("bad type pattern %q: %w", pattern, err)
		}
	}
	return nil
}

// Match reports whether the event with seq and type eventType is selected.
// Patterns must have passed Check.
func (f Filter) Match(seq int64, eventType string) bool {
	if seq < f.From || (f.ToSet && seq > f.To) {
		return false
	}
	if len(f.Types) == 0 {
		return true
	}
	for _, pattern := range f.Types {
		if ok, _ := path.Match(pattern, eventType); ok {
			return true
		}
	}
	return false
}
