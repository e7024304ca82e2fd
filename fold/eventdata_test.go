package fold

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// mayHoldToolChangeTwoScans is the definition mayHoldToolChange computes in
// one scan.
func mayHoldToolChangeTwoScans(content jsonv.Value) bool {
	return content.MayHoldString(tagToolAddition) || content.MayHoldString(tagToolRemoval)
}

var toolChangeTexts = []string{
	`[]`, `{}`, `"tool-addition"`, `"tool-removal"`, `"tool-call"`, `[1,2,"-"]`,
	`[{"type":"text","text":"a-b"}]`,
	`[{"type":"tool-addition","toolName":"x"}]`,
	`[{"type":"tool-removal","toolName":"x"}]`,
	`[{"type":"tool-call","id":"c"}]`,
	`[{"type":"text","text":"tool-addition"}]`,
	`[{"type":"text","text":"a tool-addition"}]`,
	`[{"type":"text","text":"tool-additions"}]`,
	`[{"type":"text","text":"\"tool-removal\""}]`,
	`[{"type":"text","text":"tool-remova"}]`,
	`["tool-"]`, `["-tool-addition"]`, `["tool-addition-"]`, `{"tool-removal":1}`,
	`[ "tool-addition" ]`, `["tool\u002daddition"]`, `["tool-addition\n"]`,
	`[{"type":"tool-call"},{"type":"tool-removal"}]`, `"-"`, `"tool"`,
}

func TestMayHoldToolChangeAgreesWithTwoScans(t *testing.T) {
	for _, text := range toolChangeTexts {
		v, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		for _, value := range []jsonv.Value{v, jsonv.Detach(v)} {
			if got, want := mayHoldToolChange(value), mayHoldToolChangeTwoScans(value); got != want {
				t.Errorf("mayHoldToolChange(%s) = %v, two scans say %v", text, got, want)
			}
		}
	}
	// A block that holds a tag must be found: the check may not miss one.
	for _, text := range []string{`[{"type":"tool-addition"}]`, `[{"type":"tool-removal"}]`} {
		v, _ := jsonv.Parse([]byte(text))
		if !mayHoldToolChange(v) {
			t.Errorf("mayHoldToolChange(%s) = false", text)
		}
	}
}

func FuzzMayHoldToolChange(f *testing.F) {
	for _, text := range toolChangeTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := jsonv.Parse([]byte(text))
		if err != nil {
			return
		}
		if got, want := mayHoldToolChange(v), mayHoldToolChangeTwoScans(v); got != want {
			t.Errorf("mayHoldToolChange(%q) = %v, two scans say %v", text, got, want)
		}
	})
}
