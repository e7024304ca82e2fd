package fold

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// projectImageOffload interprets an image/offload event, dsh's one
// first-party message projection (projection.ts@a077afb6,
// project-message.ts@103e8703): selected images of current user or tool
// messages are marked offloaded:true. Node membership and message identity
// never change.
func (f *Fold) projectImageOffload(ev session.Event) ([]projectedMessage, error) {
	data := ev.Data()
	targets := data.Field("targets")
	if !isRecord(data) || data.Len() != 1 || targets.Kind() != jsonv.Array || targets.Len() == 0 {
		return nil, refusef("image/offload: data must contain a nonempty targets array")
	}
	var projected []projectedMessage
	for _, target := range targets.Elements() {
		seq, seqOK := target.Field("seq").Count()
		indexes := target.Field("imageIndexes")
		if !isRecord(target) || target.Len() != 2 || !seqOK || indexes.Kind() != jsonv.Array || indexes.Len() == 0 {
			return nil, refusef("image/offload: each target must contain a seq and nonempty imageIndexes")
		}
		if projectedIndex(projected, seq) >= 0 {
			return nil, refusef("image/offload: duplicate target seq %d", seq)
		}
		at := f.indexOf(seq)
		if at < 0 {
			return nil, refusef("image/offload: target seq %d is not a current surface node", seq)
		}
		node := f.nodes[at]
		if node.Type != typeUser && node.Type != typeToolResult {
			return nil, refusef("image/offload: target seq %d must be user/message or tool/result", seq)
		}
		selected, err := imageIndexes(indexes)
		if err != nil {
			return nil, err
		}
		message, err := offloadImages(node.Message, selected)
		if err != nil {
			return nil, err
		}
		projected = append(projected, projectedMessage{seq: seq, message: message})
	}
	return projected, nil
}

// projectedIndex returns the position of seq in projected, or -1.
func projectedIndex(projected []projectedMessage, seq int64) int {
	for i, p := range projected {
		if p.seq == seq {
			return i
		}
	}
	return -1
}

// imageIndexes reads a target's image indexes, which must be strictly
// increasing non-negative safe integers.
func imageIndexes(v jsonv.Value) ([]int64, error) {
	indexes := make([]int64, 0, v.Len())
	previous := int64(-1)
	for _, e := range v.Elements() {
		i, ok := e.Count()
		if !ok || i <= previous {
			return nil, refusef("image/offload: imageIndexes must be strictly increasing non-negative safe integers")
		}
		indexes = append(indexes, i)
		previous = i
	}
	return indexes, nil
}

// offloadImages returns message with the selected image blocks (counted in
// content order) marked offloaded:true as their last key.
func offloadImages(message jsonv.Value, selected []int64) (jsonv.Value, error) {
	blocks := message.Field("content").Elements()
	content := make([]jsonv.Value, len(blocks))
	imageIndex, next := int64(0), 0
	for i, block := range blocks {
		content[i] = block
		if block.Field("type").Text() != "image" {
			continue
		}
		if next < len(selected) && imageIndex == selected[next] {
			if block.Field("offloaded").IsTrue() {
				return jsonv.Value{}, refusef("image/offload: image index %d is already offloaded", imageIndex)
			}
			content[i] = block.With("offloaded", jsonv.BoolValue(true))
			next++
		}
		imageIndex++
	}
	if next != len(selected) {
		return jsonv.Value{}, refusef("image/offload: image index %d does not exist", selected[next])
	}
	return message.With("content", jsonv.ArrayValue(content...)), nil
}
