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
	offset = max0(offset)
	if max < 1 {
		max = 1
	}
	if offset > len(r) {
		offset = len(r)
	}
	return cutRunes(r[offset:min(len(r), offset+max)], offset, len(r), max)
}

// CutSlice is Cut when only part of the text is at hand: slice holds the
// text's characters [offset, offset+max) (fewer at its end), total is how
// many the whole text has. It answers what Cut of the whole text would.
func CutSlice(slice string, offset, total, max int) Page {
	r := []rune(slice)
	if max < 1 {
		max = 1
	}
	return cutRunes(r[:min(len(r), max)], max0(offset), total, max)
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// cutRunes cuts a page out of r, the characters [offset, offset+max) of a
// text of total characters.
func cutRunes(r []rune, offset, total, max int) Page {
	p := Page{Total: total}
	if offset >= total {
		return p
	}
	end := offset + max
	if end >= total {
		p.Text = string(r)
		p.Characters = len(r)
		return p
	}
	cut := len(r)
	for i := len(r); i > 0; i-- {
		// r[i] starts the next page when r[i-1] ends a line.
		if r[i-1] == '\n' {
			cut = i
			break
		}
	}
	body := r[:cut]
	// The newline that ends the page belongs to neither page.
	if n := len(body); n > 0 && body[n-1] == '\n' {
		body = body[:n-1]
	}
	p.Text = string(body)
	p.Characters = len(body)
	p.Next = offset + cut
	p.Truncated = true
	return p
}
