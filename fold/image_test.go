package fold

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// TestHasImageBlock: the scan and peeks of hasImageBlock answer as decoding
// every block does (offloadImages's test of a block), on parsed messages,
// canonical or not, and on built ones.
func TestHasImageBlock(t *testing.T) {
	for _, text := range []string{
		`{}`,
		`{"content":"image"}`,
		`{"content":[]}`,
		`{"content":[{"type":"text","text":"an image"}]}`,
		`{"content":[{"type":"text","text":"image"}]}`,
		`{"content":[{"type":"image","attachment":"a"}]}`,
		`{"content":[{"type":"text","text":"x"},{"type":"image","attachment":"a","offloaded":true}]}`,
		`{"content":[{"image":"type"}]}`,
		`{"content":[{"type":"im\u0061ge"}]}`,
		`{"content":[{"type" : "image"}]}`,
		`{"content":["image",{"type":"images"}]}`,
		`{"content":{"type":"image"}}`,
	} {
		parsed, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		built := parsed.With("content", jsonv.ArrayValue(parsed.Field("content").Elements()...))
		for _, message := range []jsonv.Value{parsed, built} {
			want := false
			for _, block := range message.Field("content").Elements() {
				want = want || block.Field("type").Text() == "image"
			}
			if got := hasImageBlock(message); got != want {
				t.Errorf("%s: hasImageBlock = %t, want %t", message, got, want)
			}
		}
	}
}
