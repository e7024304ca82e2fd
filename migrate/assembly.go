package migrate

import (
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/migrate/v0to1"
	"github.com/dshlog/dshlog/migrate/v1to2"
	"github.com/dshlog/dshlog/migrate/v2to3"
	"github.com/dshlog/dshlog/migrate/v3to4"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// oldestVersion is the oldest format this build migrates.
const oldestVersion = 0

// historicalVersion is the current version of dsh's historical catalog,
// which reads child sessions for evidence without the v3→v4 edge.
const historicalVersion = v3.Version

// newCatalog assembles dsh's v4 catalog with the v3→v4 edge bound to one
// parent's child evidence (dsh's createSessionFormatCatalogWithChildren;
// nil evidence declares no children), whose v4 restore judges events by the
// vocabulary v (nil: the default build's).
func newCatalog(children []v3to4.ChildFact, v *vocab.Vocabulary) *catalog {
	if v == nil {
		v = vocab.Default()
	}
	headless := v.Build().V0 != nil && v.Build().V0.HeadlessSurface
	chain, err := NewChain(oldestVersion, currentVersion, v4.ValidateHeader, v0to1.Edge{}, v1to2.Edge{}, v2to3.Edge{Headless: headless}, v3to4.New(children))
	if err != nil {
		panic(err) // the assembly is static: a failure is a bug of this file
	}
	return &catalog{
		chain:  chain,
		codecs: map[int]codec{0: v0Codec, 1: v1Codec, 2: v2Codec, 3: v3Codec, 4: v4Codec},
		newValidator: func(h session.Header, admitted bool) validator {
			if admitted {
				return v4.NewAdmittedRestorer(h, v)
			}
			return v4.NewRestorer(h, v)
		},
	}
}

// newHistoricalCatalog assembles dsh's historical catalog (current v3),
// which reads children of generation 3 and older for their evidence.
func newHistoricalCatalog() *catalog {
	chain, err := NewChain(oldestVersion, historicalVersion, v3.CheckHeader, v0to1.Edge{}, v1to2.Edge{}, v2to3.Edge{})
	if err != nil {
		panic(err)
	}
	return &catalog{
		chain:  chain,
		codecs: map[int]codec{0: v0Codec, 1: v1Codec, 2: v2Codec, 3: v3Codec},
		newValidator: func(h session.Header, _ bool) validator {
			return v3.NewRestorer(h)
		},
	}
}
