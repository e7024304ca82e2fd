package v1to2

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// attempt is one model stream attempt being folded: consecutive chunks of
// one turn and step, until a finish chunk, a closer or a message settles it.
type attempt struct {
	turn, step jsValue
	spans      []span // the chunk seqs, as runs of consecutive seqs
	chunks     int64
	lastSeq    int64 // seq and time of the last chunk
	lastTime   int64
	stream     stream
	terminal   bool     // a finish chunk ended it
	after      []source // source events since its last chunk, held back
}

type span struct{ first, n int64 }

// addSpan records n chunk seqs from first, whose last member has time last.
func (a *attempt) addSpan(first, n, last int64) {
	if k := len(a.spans); k > 0 && a.spans[k-1].first+a.spans[k-1].n == first {
		a.spans[k-1].n += n
	} else {
		a.spans = append(a.spans, span{first, n})
	}
	a.chunks += n
	a.lastSeq, a.lastTime = first+n-1, last
}

// cites reports whether sources lists exactly the attempt's chunk seqs, in
// order.
func (a *attempt) cites(sources []jsonv.Value) bool {
	if int64(len(sources)) != a.chunks {
		return false
	}
	i := 0
	for _, sp := range a.spans {
		for k := int64(0); k < sp.n; k++ {
			if n, ok := sources[i].Number(); !ok || n != float64(sp.first+k) {
				return false
			}
			i++
		}
	}
	return true
}

// join prepares the pending attempt for a chunk (or packed run) of turn and
// step: a settled attempt, or one of another step, is finished first, and
// an open one releases the events held behind its last chunk.
func (s *edgeStage) join(turn, step jsValue, emit session.Emit) error {
	if p := s.pending; p != nil {
		if p.terminal || !strictEqual(p.turn, turn) || !strictEqual(p.step, step) {
			if err := s.finishAttempt(emit); err != nil {
				return err
			}
		} else if err := s.flushAfter(emit); err != nil {
			return err
		}
	}
	if s.pending == nil {
		s.pending = &attempt{turn: turn, step: step}
	}
	return nil
}

// transformChunk folds one assistant/chunk event into the pending attempt.
func (s *edgeStage) transformChunk(ev source, emit session.Emit) error {
	if ev.data.IsNull() {
		return readOfNull("turn")
	}
	chunk := member(ev.data, "chunk")
	if err := s.join(member(ev.data, "turn"), member(ev.data, "step"), emit); err != nil {
		return err
	}
	a := s.pending
	if err := s.checkCut(a, ev.seq); err != nil {
		return err
	}
	kind, err := a.stream.addChunk(ev.time, chunk)
	if err != nil {
		return err
	}
	t, _ := safeInteger(ev.time)
	a.addSpan(ev.seq, 1, t)
	if kind == "finish" {
		a.terminal = true
	}
	return nil
}

// transformRun folds a packed chunk row into the pending attempt without
// expanding it. dsh checks only the run's own seqs against the cut, and a
// packed row never ends an attempt.
func (s *edgeStage) transformRun(run ChunkRun, emit session.Emit) error {
	s.previousSplice = false
	s.lastTime = defined(jsonv.IntValue(run.LastTime()))
	if err := s.join(defined(jsonv.IntValue(run.Turn())), defined(jsonv.IntValue(run.Step())), emit); err != nil {
		return err
	}
	if (run.FirstSeq() < s.sourceCut) != (run.LastSeq() < s.sourceCut) {
		return s.splitRefusal()
	}
	s.pending.stream.add(runRecord(run.Stream(), run.LastTime()))
	s.pending.addSpan(run.FirstSeq(), run.EventCount(), run.LastTime())
	return nil
}

// transformMessage embeds the attempt an assistant/message cites through
// its sourceEventSeqs, or gives it an empty stream.
func (s *edgeStage) transformMessage(ev source, emit session.Emit) error {
	p := s.pending
	if p != nil && (!strictEqual(p.turn, member(ev.data, "turn")) || !strictEqual(p.step, member(ev.data, "step"))) {
		if err := s.finishAttempt(emit); err != nil {
			return err
		}
		return s.emitSource(withStream(ev, nil), emit)
	}
	sources, cited := ev.row.Get("sourceEventSeqs")
	if !cited || sources.Kind() != jsonv.Array {
		if p != nil {
			return session.Unsupportedf("assistant/message %d does not cite its complete v1 chunk attempt", ev.seq)
		}
		return s.emitSource(withStream(ev, nil), emit)
	}
	list := sources.Elements()
	if len(list) == 0 {
		if err := s.finishAttempt(emit); err != nil {
			return err
		}
		return s.emitSource(withStream(ev, nil), emit)
	}
	if p == nil || !p.cites(list) {
		return session.Unsupportedf("assistant/message %d chunk references are not one complete ordered attempt", ev.seq)
	}
	if err := s.checkCut(p, ev.seq); err != nil {
		return err
	}
	if err := s.flushAfter(emit); err != nil {
		return err
	}
	s.pending = nil
	return s.emitSource(withStream(ev, p.stream), emit)
}

// withStream is the v2 message: no sourceEventSeqs, and the stream as the
// last data member.
func withStream(ev source, st stream) source {
	ev = ev.withData(ev.data.With("stream", st.values()))
	ev.dropSources = true
	return ev
}

// finishAttempt turns an attempt no message claimed into an
// assistant/attempt event at its last chunk, followed by the events held
// behind that chunk.
func (s *edgeStage) finishAttempt(emit session.Emit) error {
	p := s.pending
	if p == nil {
		return nil
	}
	data := make([]jsonv.Member, 0, 3)
	for _, c := range []struct {
		key string
		v   jsValue
	}{{"turn", p.turn}, {"step", p.step}} {
		if c.v.present {
			data = append(data, jsonv.M(c.key, c.v.v))
		}
	}
	data = append(data, jsonv.M("stream", p.stream.values()))
	if err := s.emitGenerated(p.lastSeq, "assistant/attempt", defined(jsonv.IntValue(p.lastTime)), jsonv.ObjectValue(data...), emit); err != nil {
		return err
	}
	if err := s.flushAfter(emit); err != nil {
		return err
	}
	s.pending = nil
	return nil
}

// flushAfter emits the events held behind the pending attempt's last chunk.
func (s *edgeStage) flushAfter(emit session.Emit) error {
	p := s.pending
	for len(p.after) > 0 {
		ev := p.after[0]
		p.after = p.after[1:]
		if err := s.emitSource(ev, emit); err != nil {
			return err
		}
	}
	p.after = nil
	return nil
}

// checkCut refuses a seeded cut that falls inside an attempt: the attempt's
// first chunk and member must lie on the same side of it.
func (s *edgeStage) checkCut(a *attempt, member int64) error {
	first := member
	if len(a.spans) > 0 {
		first = a.spans[0].first
	}
	if (first < s.sourceCut) != (member < s.sourceCut) {
		return s.splitRefusal()
	}
	return nil
}

func (s *edgeStage) splitRefusal() error {
	return session.Unsupportedf("inherited Session cut %d splits one Assistant attempt", s.sourceCut)
}
