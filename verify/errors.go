package verify

import "github.com/dshlog/dshlog/migrate"

// Errors reads every event of r and returns the findings keep selects (all
// errors when keep is nil), in order: the verdict a writer checks before it
// publishes or appends. Like Check, it returns an error only when the
// input could not be read.
func Errors(r *migrate.Reader, keep func(Finding) bool) ([]Finding, error) {
	if keep == nil {
		keep = func(f Finding) bool { return f.Severity == Error }
	}
	var found []Finding
	_, err := Check(r, func(f Finding) {
		if keep(f) {
			found = append(found, f)
		}
	})
	return found, err
}
