package artifacts

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/cespare/xxhash/v2"
)

// Hash returns the 16-hex-digit xxhash64 of data, the content hash used for
// change detection everywhere in cairn.
func Hash(data []byte) string { return HashSum(xxhash.Sum64(data)) }

// HashSum renders an xxhash64 sum as 16 hex digits.
func HashSum(sum uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], sum)
	return hex.EncodeToString(b[:])
}

// ParseHashSum reads what HashSum renders: 16 lower-case hex digits.
func ParseHashSum(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	return parseHex(s)
}

// parseHex reads lower-case hex digits, at most 16 of them.
func parseHex[T string | []byte](c T) (uint64, bool) {
	var v uint64
	var bad byte // any digit's table entry with a bit above the low four set
	for i := range len(c) {
		d := digitValue[c[i]]
		bad |= d
		v = v<<4 | uint64(d&0xf)
	}
	return v, bad < 16 && len(c) <= 16
}
