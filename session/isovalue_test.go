package session

import "testing"

func TestIsoValue(t *testing.T) {
	for _, c := range []struct {
		kind, text, want string
		ok               bool
	}{
		{"date", "2014-02-01", "2014-02-01", true},
		{"date", " 2014-02-01 ", "2014-02-01", true},
		{"date", "2016-02-29", "2016-02-29", true},
		{"date", "2014-02-29", "", false},
		{"date", "2014-13-01", "", false},
		{"date", "01/02/2014", "", false},
		{"date", "2014-2-1", "", false},
		{"time", "13:45", "13:45", true},
		{"time", "13:45:30.250", "13:45:30.250", true},
		{"time", "24:00", "", false},
		{"time", "1:45 pm", "", false},
		{"datetime-local", "2014-02-01T13:45", "2014-02-01T13:45", true},
		{"datetime-local", "2014-02-01 13:45", "2014-02-01T13:45", true},
		{"datetime-local", "2014-02-01", "", false},
		{"month", "2014-02", "2014-02", true},
		{"month", "2014-00", "", false},
		{"week", "2014-W05", "2014-W05", true},
		{"week", "2014-W54", "", false},
		{"week", "2014-5", "", false},
		{"color", "#FF0000", "#ff0000", true},
		{"color", "#f00", "", false},
		{"color", "red", "", false},
		{"range", "42", "42", true},
		{"range", "-1.5", "-1.5", true},
		{"range", "many", "", false},
		{"range", "Inf", "", false},
		{"date", "", "", true},
		{"week", "", "", true},
		{"color", "", "", false},
		{"range", "", "", false},
	} {
		got, form, ok := isoValue(c.kind, c.text)
		if ok != c.ok || (ok && got != c.want) || form == "" {
			t.Errorf("isoValue(%s, %q) = %q, %q, %v; want %q, %v", c.kind, c.text, got, form, ok, c.want, c.ok)
		}
	}
}
