package fold

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// appendWithoutContent writes exactly the text of withoutContent's object,
// for every shape of tool-result data the rewrite guard may meet.
func TestAppendWithoutContentMatchesWithoutContent(t *testing.T) {
	for _, text := range []string{
		`{"message":{"role":"tool","content":[{"type":"text","text":"out"}],"toolCallId":"c1"},"callId":"c1"}`,
		`{"callId":"c1","message":{"content":"s","isError":true},"error":{"code":"x"}}`,
		`{"message":{"role":"tool","toolCallId":"c1"}}`,
		`{"message":{"content":null}}`,
		`{"message":"not a record","x":1}`,
		`{"message":[1,2]}`,
		`{"message":{}}`,
		`{}`,
		`{"x":{"y":[true,false,null,-1.5e300,"\u0000\"\\é😀\ud800"]}}`,
		`{"1":"index key","message":{"2":"b","content":"c","a":{}},"0":"first"}`,
		`{"message":{"content":"one","content":"two"},"message":{"role":"tool","content":"three"}}`,
		`{"a" : [ 1 , 2 ] , "message" : { "content" : 1 } }`,
		`[]`,
		`"text"`,
		`null`,
		`0`,
	} {
		data, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want := jsonv.Detach(withoutContent(data)).Encode()
		if got := appendWithoutContent(nil, data); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", text, got, want)
		}
	}
}
