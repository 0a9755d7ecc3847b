package snapshot

// Page is one page of a long output.
type Page struct {
	Text       string
	Total      int // characters in the whole output
	Next       int // where the next page starts; 0 when this is the last
	Truncated  bool
	Characters int // characters in Text
}

// Cut returns the page of text that starts at offset (in characters) and
// holds at most max characters. A page ends on a whole line whenever one
// fits, so a tree line (and its ref) is never cut in half; a single line
// longer than max is cut at max.
func Cut(text string, offset, max int) Page {
	r := []rune(text)
	p := Page{Total: len(r)}
	if offset < 0 {
		offset = 0
	}
	if max < 1 {
		max = 1
	}
	if offset >= len(r) {
		return p
	}
	end := offset + max
	if end >= len(r) {
		p.Text = string(r[offset:])
		p.Characters = len(r) - offset
		return p
	}
	cut := end
	for i := end; i > offset; i-- {
		// r[i] starts the next page when r[i-1] ends a line.
		if r[i-1] == '\n' {
			cut = i
			break
		}
	}
	body := r[offset:cut]
	// The newline that ends the page belongs to neither page.
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body = body[:n-1]
	}
	p.Text = string(body)
	p.Characters = len(body)
	p.Next = cut
	p.Truncated = true
	return p
}
