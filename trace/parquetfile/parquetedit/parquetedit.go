// Package parquetedit rewrites the metadata of Parquet files, to make files
// that lie about their sizes: for the readers' tests and the hostile corpus
// (testdata/hostile), never for reading or writing traces.
package parquetedit

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

const magic = "PAR1"

// Footer decodes the footer of the Parquet file data.
func Footer(data []byte) (format.FileMetaData, error) {
	var md format.FileMetaData
	start, err := footerStart(data)
	if err != nil {
		return md, err
	}
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, data[start:len(data)-8], &md); err != nil {
		return md, fmt.Errorf("parquetedit: footer: %w", err)
	}
	return md, nil
}

// EditFooter decodes the footer of data, lets edit change it and returns the
// file with the re-encoded footer.
func EditFooter(data []byte, edit func(*format.FileMetaData)) ([]byte, error) {
	md, err := Footer(data)
	if err != nil {
		return nil, err
	}
	start, _ := footerStart(data)
	edit(&md)
	footer, err := thrift.Marshal(&thrift.CompactProtocol{}, &md)
	if err != nil {
		return nil, fmt.Errorf("parquetedit: footer: %w", err)
	}
	out := append(append([]byte{}, data[:start]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, magic...), nil
}

// InflateFirstPage makes the header of the file's first page (at byte 4)
// claim uncompressed bytes, shifting the footer's offsets past it by the
// header's change in length.
func InflateFirstPage(data []byte, uncompressed int32) ([]byte, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("parquetedit: %d bytes: want a Parquet file", len(data))
	}
	var proto thrift.CompactProtocol
	var h format.PageHeader
	rest := bytes.NewReader(data[4:])
	if err := thrift.NewDecoder(proto.NewReader(rest)).Decode(&h); err != nil {
		return nil, fmt.Errorf("parquetedit: first page header: %w", err)
	}
	n := len(data) - 4 - rest.Len() // the header's length
	h.UncompressedPageSize = uncompressed
	header, err := thrift.Marshal(&proto, &h)
	if err != nil {
		return nil, fmt.Errorf("parquetedit: first page header: %w", err)
	}
	delta := int64(len(header) - n)
	out := append(append(append([]byte{}, data[:4]...), header...), data[4+n:]...)
	return EditFooter(out, func(md *format.FileMetaData) {
		shift := func(off *int64) {
			if *off > 4 {
				*off += delta
			}
		}
		for i := range md.RowGroups {
			rg := &md.RowGroups[i]
			shift(&rg.FileOffset)
			for j := range rg.Columns {
				c := &rg.Columns[j]
				shift(&c.FileOffset)
				shift(&c.MetaData.DataPageOffset)
				shift(&c.MetaData.DictionaryPageOffset)
				shift(&c.MetaData.IndexPageOffset)
				shift(&c.OffsetIndexOffset)
				shift(&c.ColumnIndexOffset)
				shift(&c.MetaData.BloomFilterOffset)
				if i == 0 && j == 0 {
					c.MetaData.TotalCompressedSize += delta
				}
			}
		}
	})
}

func footerStart(data []byte) (int, error) {
	if len(data) < 12 || string(data[len(data)-4:]) != magic {
		return 0, fmt.Errorf("parquetedit: %d bytes without %s at the end: want a Parquet file", len(data), magic)
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	if n > len(data)-12 {
		return 0, fmt.Errorf("parquetedit: footer of %d bytes in a file of %d", n, len(data))
	}
	return len(data) - 8 - n, nil
}
