package snapshot

import (
	"strconv"
	"strings"
)

// The action map in Playwright's aria-snapshot form, for the Playwright MCP
// surface: one YAML list entry per item, its states in brackets, its ref
// as [ref=eN] and a pointer cursor as [cursor=pointer], a field's value
// after a colon and a link's address as a child "/url" entry:
//
//	- heading "Pricing" [level=2] [ref=e3]
//	- link "Plans" [ref=e12] [cursor=pointer]:
//	  - /url: /plans
//	- checkbox "Remember me" [checked] [ref=e16]
//	- textbox "Tags" [ref=e17]: Macao
//	- textbox [ref=e18] [filled] # near "Password"
//
// What a name-less item is known by (a label near it, an icon) is a YAML
// comment, which a YAML reader skips. The surface's snapshot nests these
// entries in their containers (NestedYAML, from the read's items); a
// changes summary, in the map's own lines, is read back into entries here
// (YAMLFromChanges).

func yamlEntry(ref, role, name, hint string, states []string, href, value string) string {
	return yamlItem(ref, role, name, hint, states, href, value, false, "")
}

// yamlItem is an item's entry; kids: entries follow it, indented (it ends
// in a colon, and a value, which could not, is left to them); note: a
// comment of lyrad's after it (what changed).
func yamlItem(ref, role, name, hint string, states []string, href, value string, kids bool, note string) string {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(role)
	if name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(name))
	}
	pointer := href != ""
	for _, s := range states {
		if s == "clickable" {
			pointer = true
			continue
		}
		b.WriteString(" [")
		b.WriteString(s)
		b.WriteByte(']')
	}
	b.WriteString(" [ref=")
	b.WriteString(ref)
	b.WriteByte(']')
	if pointer {
		b.WriteString(" [cursor=pointer]")
	}
	switch {
	case href != "" || kids:
		b.WriteByte(':')
	case value != "":
		b.WriteString(": ")
		b.WriteString(yamlScalar(value))
	}
	switch {
	case hint != "" && note != "":
		b.WriteString(" # " + hint + "; " + note)
	case hint != "":
		b.WriteString(" # " + hint)
	case note != "":
		b.WriteString(" # " + note)
	}
	if href != "" {
		b.WriteString("\n  - /url: ")
		b.WriteString(yamlScalar(href))
	}
	return b.String()
}

// yamlScalar is s as a plain YAML scalar when it reads back as itself,
// else double-quoted.
func yamlScalar(s string) string {
	if s == "" {
		return `""`
	}
	plain := !strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@` ") &&
		!strings.Contains(s, ": ") && !strings.Contains(s, " #") &&
		!strings.HasSuffix(s, ":") && !strings.HasSuffix(s, " ")
	switch strings.ToLower(s) {
	case "true", "false", "null", "~", "yes", "no", "on", "off":
		plain = false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		plain = false
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// MapLine is one line of the action map, read back: what Line printed.
type MapLine struct {
	Ref, Role, Name string
	Hint            string // `near "Password"`, `icon "trash"`
	States          []string
	Href            string // as the map shows it (a path on the page's own origin)
	Value           string
}

// ParseLine reads a line Line printed; ok is false for any other line.
func ParseLine(line string) (MapLine, bool) {
	var l MapLine
	rest, ok := strings.CutPrefix(line, "aria-ref=")
	if !ok {
		return l, false
	}
	var found bool
	l.Ref, rest, found = strings.Cut(rest, " ")
	if !found || l.Ref == "" {
		return l, false
	}
	i := strings.IndexAny(rest, " :")
	if i < 0 {
		l.Role = rest
		return l, l.Role != ""
	}
	l.Role, rest = rest[:i], rest[i:]
	switch {
	case strings.HasPrefix(rest, ` "`):
		q, err := strconv.QuotedPrefix(rest[1:])
		if err != nil {
			return l, false
		}
		l.Name, _ = strconv.Unquote(q)
		rest = rest[1+len(q):]
	case strings.HasPrefix(rest, " ("):
		// (near "Username"): a word, a space, a quoted text, a parenthesis.
		word, after, ok := strings.Cut(rest[2:], " ")
		if !ok {
			return l, false
		}
		q, err := strconv.QuotedPrefix(after)
		if err != nil || !strings.HasPrefix(after[len(q):], ")") {
			return l, false
		}
		l.Hint = word + " " + q
		rest = after[len(q)+1:]
	}
	for strings.HasPrefix(rest, " [") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return l, false
		}
		l.States = append(l.States, rest[2:end])
		rest = rest[end+1:]
	}
	if h, ok := strings.CutPrefix(rest, " -> "); ok {
		// A link has no value: the rest is its address.
		l.Href = h
		return l, true
	}
	if v, ok := strings.CutPrefix(rest, ": "); ok {
		l.Value = v
		rest = ""
	}
	return l, rest == ""
}

// YAML is the line as an aria-snapshot entry.
func (l MapLine) YAML() string {
	return yamlEntry(l.Ref, l.Role, l.Name, l.Hint, l.States, l.Href, l.Value)
}

// YAMLFromChanges turns a changes summary (Summary) into aria-snapshot
// YAML: each line that appeared or changed as its entry, with what it was
// in a comment; a line gone, and a note, as a comment.
func YAMLFromChanges(text string) string {
	if text == "" || text == "none" {
		return ""
	}
	var out []string
	for _, s := range strings.Split(text, "\n") {
		kind, rest, _ := strings.Cut(s, " ")
		note := ""
		switch kind {
		case string(Appeared):
			note = "appeared"
		case string(Changed):
			note = "changed"
			if i := strings.LastIndex(rest, " (was: "); i >= 0 && strings.HasSuffix(rest, ")") {
				note += ", was: " + rest[i+len(" (was: "):len(rest)-1]
				rest = rest[:i]
			}
		default:
			if kind == string(Gone) {
				out = append(out, "# gone: "+rest)
			} else if s != "" {
				out = append(out, "# "+s)
			}
			continue
		}
		l, ok := ParseLine(rest)
		if !ok {
			out = append(out, "# "+s)
			continue
		}
		y := l.YAML()
		first, child, hasChild := strings.Cut(y, "\n")
		if strings.Contains(first, " # ") {
			first += "; " + note
		} else {
			first += " # " + note
		}
		if hasChild {
			first += "\n" + child
		}
		out = append(out, first)
	}
	return strings.Join(out, "\n")
}
