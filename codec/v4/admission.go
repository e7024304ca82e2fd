package v4

import "github.com/dshlog/dshlog/jsonv"

// AdmitRow is dsh's native v4 row admission (assertV4RowAdmission), applied
// to each parsed row before framing and regardless of the recovery policy:
// developer data, producer-owned message sources, retired syntax, system
// message fields, first-class tool results and fork results. As in dsh's
// codec no vocabulary is supplied, so an ignorable developer/message row is
// admitted unchecked here (the v4 restore checks it).
func AdmitRow(row jsonv.Value) error {
	if isObject(row) {
		if isString(row.Field("type"), "developer/message") && row.Field("ignorable").IsTrue() {
			return nil
		}
		if err := checkDeveloperData(row); err != nil {
			return err
		}
	}
	if err := admitSources(row); err != nil {
		return err
	}
	if err := checkRetiredSyntax(row); err != nil {
		return err
	}
	if err := checkSystemMessage(row); err != nil {
		return err
	}
	if !isObject(row) || !isString(row.Field("type"), "tool/result") {
		return nil
	}
	if err := checkToolResult(row); err != nil {
		return err
	}
	return checkForkResult(row, func() (jsonv.Value, bool) { return row.Get("sourceEventSeqs") })
}
