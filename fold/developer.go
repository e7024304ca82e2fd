package fold

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// checkDeveloperHeader resolves a developer message's tool additions against
// the request/header it names (assertDeveloperHeader, surface.ts@103e8703):
// each addition must name exactly one complete tool definition there. Where a
// normalized snapshot lists the tools by name, only the name is checked; where
// it gives the "{{tools}}" placeholder, nothing can be (vocabulary.md).
func (f *Fold) checkDeveloperHeader(ev session.Event) error {
	if err := checkEventData(ev, subject{typ: typeDeveloper, n: ev.Seq}); err != nil {
		return err
	}
	data := ev.Data()
	if !data.Has("headerSeq") {
		return nil
	}
	headerSeq, _ := data.Field("headerSeq").Count()
	tools, isHeader := f.headerTools[headerSeq]
	if headerSeq >= ev.Seq || !isHeader {
		return refusef("developer/message headerSeq must reference an earlier request/header")
	}
	if tools.Kind() == jsonv.String {
		return nil // the snapshot placeholder "{{tools}}": the tools are not in the log
	}
	for _, block := range data.Field("message").Field("content").Elements() {
		if block.Field("type").Text() != "tool-addition" {
			continue
		}
		name := block.Field("toolName")
		definitions := toolsNamed(tools, name)
		if len(definitions) != 1 {
			return refusef(`developer/message tool-addition "%s" must name exactly one tool in headerSeq %d`, name.Text(), headerSeq)
		}
		definition := definitions[0]
		if definition.Kind() == jsonv.String {
			continue // a snapshot names the tool only: the schema checks need the real tool list
		}
		if definition.Field("description").Kind() != jsonv.String || !isRecord(definition.Field("parameters")) {
			return refusef(`developer/message tool-addition "%s" requires a complete tool definition in headerSeq %d`, name.Text(), headerSeq)
		}
		if deferLoading, present := definition.Get("deferLoading"); present && !deferLoading.IsTrue() {
			return refusef("developer/message referenced tool deferLoading must be true when present")
		}
	}
	return nil
}

// toolsNamed returns the tool schemas in tools whose name is name. In dsh's
// normalized snapshot form a tool may be given by its name alone (a string),
// which is returned as it is.
func toolsNamed(tools jsonv.Value, name jsonv.Value) []jsonv.Value {
	var found []jsonv.Value
	for _, tool := range tools.Elements() {
		if jsonv.Equal(tool.Field("name"), name) || tool.Kind() == jsonv.String && jsonv.Equal(tool, name) {
			found = append(found, tool)
		}
	}
	return found
}
