package v4

import "github.com/dshlog/dshlog/jsonv"

// AdmitRow applies dsh's native v4 row admission (assertV4RowAdmission)
// before framing: producer-owned message sources, retired syntax, system
// message fields, first-class tool results and fork results.
func AdmitRow(row jsonv.Value) error {
	return nil // TODO(migrate): implement per format-v2-v4.md §1.9
}
