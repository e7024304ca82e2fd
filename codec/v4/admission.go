package v4

import "github.com/dshlog/dshlog/jsonv"

// AdmitRow is dsh's native v4 row admission (assertV4RowAdmission), applied
// to each parsed row before framing and regardless of the recovery policy:
// developer data, producer-owned message sources, retired syntax, system
// message fields, first-class tool results and fork results. As in dsh's
// codec no vocabulary is supplied, so an ignorable developer/message row is
// admitted unchecked here (the v4 restore checks it).
func AdmitRow(row jsonv.Value) error {
	if !isObject(row) {
		return nil // each check passes a row that is not an object
	}
	r := partsOf(row)
	if r.typ == "developer/message" && row.Field("ignorable").IsTrue() {
		return nil
	}
	if err := r.checkDeveloperData(); err != nil {
		return err
	}
	if err := r.admitSources(); err != nil {
		return err
	}
	if err := r.checkRetiredSyntax(); err != nil {
		return err
	}
	if err := r.checkSystemMessage(); err != nil {
		return err
	}
	if r.typ != "tool/result" {
		return nil
	}
	if err := checkToolResult(row); err != nil {
		return err
	}
	return checkForkResult(row, func() (jsonv.Value, bool) { return row.Get("sourceEventSeqs") })
}

// rowParts are a row with the members every check reads, looked up once:
// its type, "" when that is not a string, and its data.
type rowParts struct {
	row  jsonv.Value
	typ  string
	data jsonv.Value
}

func partsOf(row jsonv.Value) rowParts {
	typ, _ := row.Field("type").Str()
	return rowParts{row: row, typ: typ, data: row.Field("data")}
}
