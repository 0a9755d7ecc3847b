package tools

import (
	"errors"
	"strings"

	"github.com/lyrad/lyrad/session"
)

// Replies: the wire form of what package session answers. The keys are
// the lyra tools' published ones, so agents written against them keep
// working.

// ownFields adds a tool's own fields to an acting call's reply.
type ownFields func(r *session.ActResult, out map[string]any)

// actReply is an acting call's reply: the fields every acting call has,
// then the tool's own. A refusal that carries what the call did (a click
// whose navigation the guard stopped) answers those fields too, under the
// error's own.
func actReply(res *session.ActResult, err error, own ownFields) (map[string]any, error) {
	if err != nil {
		var se *session.Error
		if errors.As(err, &se) && se.Result != nil {
			if se.Fields == nil {
				se.Fields = map[string]any{}
			}
			for k, v := range actFields(se.Result, own, true) {
				if _, ok := se.Fields[k]; !ok && k != "hint" {
					se.Fields[k] = v
				}
			}
		}
		return nil, err
	}
	return actFields(res, own, false), nil
}

// actFields renders r. partial (the fields an error carries) leaves out
// what the call did not get to know.
func actFields(r *session.ActResult, own ownFields, partial bool) map[string]any {
	out := map[string]any{}
	if !partial || r.URL != "" {
		out["url"], out["title"] = r.URL, r.Title
	}
	if !partial || r.TabCount > 0 {
		out["tab_count"] = r.TabCount
	}
	if r.Selector != "" {
		out["selector"] = r.Selector
		out["matches"] = r.Matches
	}
	flag := func(k string, v bool) {
		if v {
			out[k] = true
		}
	}
	flag("new_tab", r.NewTab)
	flag("navigated", r.Navigated)
	flag("navigating", r.Navigating)
	if len(r.Dialogs) > 0 {
		list := make([]map[string]any, 0, len(r.Dialogs))
		for _, d := range r.Dialogs {
			answer := "dismissed"
			if d.Accepted {
				answer = "accepted"
			}
			// A prompt's text is not echoed: it is the user's.
			list = append(list, map[string]any{"type": d.Type, "message": d.Message, "answer": answer, "by": d.By})
		}
		out["dialogs"] = list
	}
	if r.DialogsMore > 0 {
		out["dialogs_more"] = r.DialogsMore
	}
	if d := r.Download; d != nil {
		dl := map[string]any{"filename": d.Filename, "path": d.Path, "bytes": d.Bytes, "url_origin": d.URLOrigin}
		if d.Observed {
			dl["observed"] = true
		}
		out["download"] = dl
	}
	if r.Changes != "" {
		out["changes"] = r.Changes
		if r.ReadID != "" {
			out["read_id"] = r.ReadID
		}
	}
	if own != nil {
		own(r, out)
	}
	if len(r.Hints) > 0 {
		out["hint"] = strings.Join(r.Hints, " ")
	}
	return out
}

// element names an element as replies do.
func element(e *session.ElementInfo) map[string]any {
	if e == nil {
		return nil
	}
	return map[string]any{"tag": e.Tag, "role": e.Role, "name": e.Name}
}

// acted puts what was acted on under key.
func acted(key string) ownFields {
	return func(r *session.ActResult, out map[string]any) {
		if r.Element != nil {
			out[key] = element(r.Element)
		}
	}
}

// loadFields are what navigate and the history steps add.
func loadFields(r *session.ActResult, out map[string]any) {
	out["http_status"], out["content_type"] = nil, nil
	l := r.Load
	if l == nil {
		return
	}
	if l.HTTPStatus != nil {
		out["http_status"] = *l.HTTPStatus
	}
	if l.ContentType != nil {
		out["content_type"] = *l.ContentType
	}
	if l.FromCache {
		out["from_cache"] = true
	}
	if l.Stayed {
		out["stayed"] = true
	}
}

// tabFields are the tab list as replies show it.
func tabFields(l *session.TabList, out map[string]any) {
	if l == nil {
		return
	}
	list := make([]map[string]any, 0, len(l.Tabs))
	for _, t := range l.Tabs {
		list = append(list, map[string]any{"index": t.Index, "url": t.URL, "title": t.Title, "active": t.Active})
	}
	out["tabs"], out["tab_count"], out["active_index"] = list, len(list), l.Active
}
