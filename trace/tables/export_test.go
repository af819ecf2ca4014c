package tables

import "bytes"

// Hooks for the tests of package tables_test, which build their rows with
// package audit (and audit imports this package).

// CreateWithRowGroups is Create with row group bounds: small ones make
// reading cross row groups.
var CreateWithRowGroups = create

// ReaderOfBytes reads tables held in memory, named requests.parquet and
// events.parquet.
func ReaderOfBytes(requests, events []byte) (*Reader, error) {
	return newReader(source{name: RequestsFile, r: bytes.NewReader(requests), size: int64(len(requests))},
		source{name: EventsFile, r: bytes.NewReader(events), size: int64(len(events))})
}

// KeyValues are the metadata of table for m.
func (m Meta) KeyValues(table string) [][2]string { return m.keyValues(table) }
