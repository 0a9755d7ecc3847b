package main

import (
	"fmt"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/lyrad/lyrad/audit"
)

// scrubCore writes log lines with URLs as the audit trail writes them: no
// userinfo, no query values, no fragment, cut at audit.URLMax. It sits in
// front of every core lyrad logs to, so a log call added anywhere (an error
// that quotes a page's URL, a debug field named "url") cannot put a secret
// from a URL, or a page's 2 MB URL, into the log.
type scrubCore struct{ zapcore.Core }

func (c scrubCore) With(fs []zapcore.Field) zapcore.Core {
	return scrubCore{c.Core.With(scrubFields(fs))}
}

func (c scrubCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c scrubCore) Write(e zapcore.Entry, fs []zapcore.Field) error {
	e.Message = audit.ScrubText(e.Message)
	return c.Core.Write(e, scrubFields(fs))
}

// scrubFields returns fs with every string a field carries scrubbed: a
// field named like a URL (audit.IsURLKey) is written through audit.URL,
// any other string has the URLs inside it rewritten.
func scrubFields(fs []zapcore.Field) []zapcore.Field {
	out := make([]zapcore.Field, len(fs))
	for i, f := range fs {
		out[i] = scrubField(f)
	}
	return out
}

func scrubField(f zapcore.Field) zapcore.Field {
	text := func(s string) zapcore.Field {
		if audit.IsURLKey(f.Key) {
			return zap.String(f.Key, audit.URL(s))
		}
		return zap.String(f.Key, audit.ScrubText(s))
	}
	switch f.Type {
	case zapcore.StringType:
		return text(f.String)
	case zapcore.ByteStringType:
		b, _ := f.Interface.([]byte)
		return text(string(b))
	case zapcore.ErrorType:
		if err, ok := f.Interface.(error); ok && err != nil {
			return text(err.Error())
		}
	case zapcore.StringerType:
		if s, ok := f.Interface.(fmt.Stringer); ok && s != nil {
			return text(s.String())
		}
	case zapcore.ReflectType, zapcore.ArrayMarshalerType, zapcore.ObjectMarshalerType:
		// Structured values go through the audit's redaction, which
		// knows URL keys at any depth and URLs inside any string.
		enc := zapcore.NewMapObjectEncoder()
		f.AddTo(enc)
		return zap.Any(f.Key, audit.Redact("", enc.Fields)[f.Key])
	}
	return f
}
