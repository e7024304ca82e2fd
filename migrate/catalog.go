package migrate

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// codec is one stored version's physical reader, as in dsh's catalog.
type codec struct {
	version      int
	decodeHeader func(hv jsonv.Value) (session.Header, error)
	// newDecoder decodes the header value and starts reading rows.
	newDecoder func(hv jsonv.Value, recovery v2.Recovery) (rowDecoder, error)
}

// rowDecoder reads the body rows of one session (dsh's codec decoder).
type rowDecoder interface {
	Header() session.Header
	// HeaderCut is the inherited cut when the header states it (v0/v1), or
	// -1 when only the body tells.
	HeaderCut() int64
	// Decode takes the next parsed row and emits what it decodes to.
	Decode(row jsonv.Value, emit session.Emit) error
	// Finish runs the final row checks and returns the inherited cut.
	Finish(emit session.Emit) (int64, error)
	// Issue is the first problem recovery dropped rows for, if any.
	Issue() error
}

// validator is a current-version artifact check (dsh's restoreCurrent),
// fed the migrated events one at a time. Add never refuses: the refusal
// dsh would raise on the whole artifact is decided by Finish, once every
// event and the cut are known.
type validator interface {
	Add(ev session.Event)
	Finish(cut int64) error
}

// catalog is dsh's build-static set of codecs and migrations for one
// current version, with the current artifact and header checks.
type catalog struct {
	chain  *Chain
	codecs map[int]codec
	// newValidator returns the current artifact check for a session with
	// the given current header (nil: no artifact check); admitted says the
	// events are the current codec's, whose rows its admission has passed.
	newValidator func(h session.Header, admitted bool) validator
}

// Validation says which artifact check follows a restore, as dsh's
// validation option does.
type Validation int

const (
	// Transformed checks only the generation-owned rules and reports a
	// migrated artifact's failure as a refusal of the migration (dsh's
	// historical JSONL read).
	Transformed Validation = iota
	// Current checks a restored artifact as the current reader does and
	// reports its failure unwrapped.
	Current
)

// HeaderStatus classifies a stored header as dsh's catalog.readHeader does.
type HeaderStatus int

// The header classes: already current, readable once migrated, refused by
// policy (a newer version, or an older one with no path), or malformed.
const (
	StatusCurrent HeaderStatus = iota
	StatusMigrationRequired
	StatusUnsupported
	StatusMalformed
)

func (s HeaderStatus) String() string {
	return [...]string{"current", "migration-required", "unsupported", "malformed"}[s]
}

// HeaderInfo is what a header alone says about a stored session.
type HeaderInfo struct {
	Status HeaderStatus
	// StoredVersion is the header's version, or -1 when it has none.
	StoredVersion int
	TargetVersion int
	// Header is the current logical header (Current, MigrationRequired).
	Header session.Header
	// Reason is why the session cannot be read (Unsupported, Malformed).
	Reason error
}

// ReadHeader classifies a stored session by its parsed header line alone,
// as dsh's list and stat do: current, migration required, unsupported
// (newer, or older with no path) or malformed, with the current header it
// would have.
func ReadHeader(hv jsonv.Value) HeaderInfo { return newCatalog(nil, nil).readHeader(hv) }

func (c *catalog) readHeader(hv jsonv.Value) HeaderInfo {
	info := HeaderInfo{StoredVersion: -1, TargetVersion: c.chain.Current()}
	version, err := inspectVersion(hv)
	if err != nil {
		info.Status, info.Reason = StatusMalformed, err
		return info
	}
	info.StoredVersion = version
	cd, err := c.codecFor(version)
	if err != nil {
		info.Status, info.Reason = StatusUnsupported, err
		return info
	}
	h, err := cd.decodeHeader(hv)
	if err == nil {
		h, err = c.chain.MigrateHeader(h)
	}
	switch {
	case isUnsupported(err):
		info.Status, info.Reason = StatusUnsupported, err
	case err != nil:
		info.Status, info.Reason = StatusMalformed, err
	case version == c.chain.Current():
		info.Status, info.Header = StatusCurrent, h
	default:
		info.Status, info.Header = StatusMigrationRequired, h
	}
	return info
}

// inspectVersion reads a header's version the way dsh's
// inspectSessionFormatVersion does.
func inspectVersion(hv jsonv.Value) (int, error) {
	if hv.Kind() != jsonv.Object {
		return 0, session.FormatErrorf("Session header must be a JSON object")
	}
	v, ok := hv.Field("version").Count()
	if !ok {
		return 0, session.FormatErrorf("Session format version must be a non-negative safe integer")
	}
	return int(v), nil
}

// codecFor returns the codec of a stored version, or the refusal for a
// version this build cannot read.
func (c *catalog) codecFor(version int) (codec, error) {
	if version > c.chain.Current() {
		return codec{}, errNewer(version, c.chain.Current())
	}
	cd, ok := c.codecs[version]
	if !ok {
		return codec{}, errOlder(version, c.chain.oldest)
	}
	return cd, nil
}

func isUnsupported(err error) bool {
	r, ok := err.(*session.Refusal)
	return ok && r.Class == session.ClassUnsupported
}

// restore is one session being restored: rows in, current events out.
type restore struct {
	Header        session.Header
	SourceVersion int
	current       int
	decoder       rowDecoder
	stream        *Stream // nil when the stored version is current
	validation    Validation
	check         validator
	// checkElsewhere says that the caller gives every event to check and
	// calls judge itself, instead of collect and finish.
	checkElsewhere bool
	sourceCut      int64
	entry          session.Emit // where decoded items go
	// putBack, when set, restores in each current event what the chain
	// could not carry (see migrate/lift), before the artifact check sees it.
	putBack func(session.Event) session.Event
}

// newRestore starts restoring the session whose header value is hv: each
// current event is handed to sink after it has been given to the artifact
// check.
func (c *catalog) newRestore(hv jsonv.Value, recovery v2.Recovery, validation Validation, sink func(session.Event) error) (*restore, error) {
	version, err := inspectVersion(hv)
	if err != nil {
		return nil, err
	}
	cd, err := c.codecFor(version)
	if err != nil {
		return nil, err
	}
	dec, err := cd.newDecoder(hv, recovery)
	if err != nil {
		return nil, err
	}
	r := &restore{SourceVersion: version, current: c.chain.Current(), decoder: dec, validation: validation, sourceCut: dec.HeaderCut()}
	collect := func(item session.Item) error {
		return item.EachEvent(func(ev session.Event) error {
			if r.putBack != nil {
				ev = r.putBack(ev)
			}
			if !r.checkElsewhere {
				r.check.Add(ev)
			}
			return sink(ev)
		})
	}
	if version == c.chain.Current() {
		r.Header, r.entry = dec.Header(), collect
	} else {
		s, err := c.chain.NewStream(dec.Header(), r.sourceCut, collect)
		if err != nil {
			return nil, err
		}
		r.Header, r.stream, r.entry = s.Header, s, s.Emit
	}
	r.check = noCheck{}
	if c.newValidator != nil && (version < c.chain.Current() || validation == Current) {
		r.check = c.newValidator(r.Header, version == c.chain.Current())
	}
	return r, nil
}

// decodeRow feeds one parsed body row through the codec and the chain.
func (r *restore) decodeRow(row jsonv.Value) error {
	return r.decoder.Decode(row, r.entry)
}

// checkRow returns the codec's checks of a row that depend on the row
// alone, to run ahead of decodeChecked, or nil when the codec has none.
func (r *restore) checkRow() func(jsonv.Value) rowCheck {
	if c, ok := r.decoder.(rowChecker); ok {
		return c.CheckRow
	}
	return nil
}

// decodeChecked is decodeRow for a row whose checkRow result is c.
func (r *restore) decodeChecked(row jsonv.Value, c rowCheck) error {
	return r.decoder.(rowChecker).DecodeChecked(row, c, r.entry)
}

// finish ends the restore as dsh's catalog does: the codec's final checks,
// then the stages in order, then the artifact check (unless the caller runs
// it). It returns the current inherited cut.
func (r *restore) finish() (int64, error) {
	cut, err := r.decoder.Finish(r.entry)
	if err != nil {
		return 0, err
	}
	if r.sourceCut >= 0 && cut != r.sourceCut {
		return 0, session.FormatErrorf("streaming decoder changed its predeclared inherited cut")
	}
	if r.stream != nil {
		if cut, err = r.stream.Finish(); err != nil {
			return 0, err
		}
	}
	if r.checkElsewhere {
		return cut, nil
	}
	return cut, r.judge(cut)
}

// judge runs the artifact check's verdict on the whole session, given its
// current inherited cut: a migrated artifact's refusal is the migration's.
func (r *restore) judge(cut int64) error {
	if err := r.check.Finish(cut); err != nil {
		if r.stream == nil || r.validation == Current || isUnsupported(err) {
			return err
		}
		return session.Unsupportedf("Session migration from v%d to v%d refuses the transformed artifact: %s", r.SourceVersion, r.current, err.Error())
	}
	return nil
}

// noCheck is the artifact check of a restore that asks for none.
type noCheck struct{}

func (noCheck) Add(session.Event)  {}
func (noCheck) Finish(int64) error { return nil }
