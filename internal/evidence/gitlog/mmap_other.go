//go:build !unix

package gitlog

import "errors"

// canMap reports whether pack files can be mapped here: elsewhere go-git
// reads them.
const canMap = false

func mapFile(string) ([]byte, func() error, error) {
	return nil, nil, errors.New("mapping files is not supported here")
}
