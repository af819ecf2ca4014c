package aiperf

// pyLower is str.lower() of s as far as a match with an ASCII word goes:
// ASCII letters lowered, the Kelvin sign (U+212A) made "k"; every other
// character lowers to something that is not ASCII, or stays.
func pyLower(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x84 && s[i+2] == 0xaa:
			c, i = 'k', i+2
		}
		out = append(out, c)
	}
	return string(out)
}
