package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// No log call, whatever it passes, writes a query value, a fragment or
// userinfo, or a URL longer than audit.URLMax.
func TestLogLinesScrubURLs(t *testing.T) {
	var buf bytes.Buffer
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zapcore.DebugLevel)
	log := zap.New(scrubCore{core}).With(zap.String("tab_url", "https://h/t?q=SEC01"))
	u, _ := url.Parse("https://u:SEC02@h/s?q=SEC03#SEC04")
	long := "https://h/" + strings.Repeat("x", 1<<20) + "?q=SEC05"
	log.Debug("navigating to https://h/m?token=SEC06",
		zap.String("url", "/relative?code=SEC07"),
		zap.Error(fmt.Errorf("navigate: %w", errors.New(`Get "https://h/e?t=SEC08": refused`))),
		zap.Stringer("target", u),
		zap.ByteString("raw", []byte("see https://h/b#SEC09")),
		zap.Any("hops", []map[string]any{{"request_url": "https://h/a?x=SEC10", "n": 1}}),
		zap.String("long", long),
		zap.Int("n", 3))
	out := buf.String()
	if strings.Contains(out, "SEC") {
		t.Errorf("a secret from a URL was logged: %s", out)
	}
	if len(out) > 8<<10 {
		t.Errorf("a 1 MB URL was logged as a %d-byte line", len(out))
	}
	for _, want := range []string{`"url":"/relative?code=[redacted]"`, `"tab_url":"https://h/t?q=[redacted]"`, `navigating to https://h/m?token=[redacted]`, `"n":3`} {
		if !strings.Contains(out, want) {
			t.Errorf("log line lacks %s: %s", want, out)
		}
	}
}
