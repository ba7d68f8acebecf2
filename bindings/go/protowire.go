package tfd

import "fmt"

// A minimal reader of the protocol buffer wire format, enough to read the
// signatures of a MetaGraphDef without a protobuf library (the binding has
// no dependencies).

// protoField is one field: varint for wire types 0, 1 and 5 (the fixed
// widths as raw bits), bytes for wire type 2.
type protoField struct {
	number int
	varint uint64
	bytes  []byte
}

func readVarint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1, nil
		}
	}
	return 0, 0, fmt.Errorf("truncated or overlong varint")
}

// forEachField calls f for each field of the message b, in order.
func forEachField(b []byte, f func(protoField) error) error {
	for len(b) > 0 {
		tag, n, err := readVarint(b)
		if err != nil {
			return err
		}
		b = b[n:]
		field := protoField{number: int(tag >> 3)}
		switch tag & 7 {
		case 0:
			if field.varint, n, err = readVarint(b); err != nil {
				return err
			}
		case 1, 5:
			n = 8
			if tag&7 == 5 {
				n = 4
			}
			if len(b) < n {
				return fmt.Errorf("truncated fixed-width field %d", field.number)
			}
			for i := n - 1; i >= 0; i-- {
				field.varint = field.varint<<8 | uint64(b[i])
			}
		case 2:
			length, m, err := readVarint(b)
			if err != nil {
				return err
			}
			if length > uint64(len(b)-m) {
				return fmt.Errorf("field %d: length %d runs past the end", field.number, length)
			}
			field.bytes = b[m : m+int(length)]
			n = m + int(length)
		default:
			return fmt.Errorf("field %d: unsupported wire type %d", field.number, tag&7)
		}
		if field.number == 0 {
			return fmt.Errorf("field number 0")
		}
		b = b[n:]
		if err := f(field); err != nil {
			return err
		}
	}
	return nil
}
