package follow

import (
	"fmt"
	"os"

	"github.com/dshlog/dshlog/store"
)

// Latest returns the session log written most recently under root: of the
// generation dsh would open of each session found (store.Walk), the one
// modified last; of two modified at the same time, the first found. It
// reads directory listings and file times only.
func Latest(root string) (string, error) {
	var latest string
	var modified int64
	err := store.Walk(root, func(d store.Dir) error {
		for _, l := range d.Current() {
			info, err := os.Stat(l.Path)
			if err != nil {
				continue // removed since the listing
			}
			if t := info.ModTime().UnixNano(); latest == "" || t > modified {
				latest, modified = l.Path, t
			}
		}
		return nil
	}, func(string, error) {}) // a directory that cannot be read has no session to follow
	if err != nil {
		return "", err
	}
	if latest == "" {
		return "", fmt.Errorf("%s: no session logs found", root)
	}
	return latest, nil
}
