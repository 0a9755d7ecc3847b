package tools

import (
	"context"
)

func downloadTools(d Deps) []*tool {
	m := d.Session
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return []*tool{
		{
			name:  "list_downloads",
			title: "List downloaded files",
			description: "List the files this session has downloaded, oldest first.\n" +
				"Each entry is filename, path, bytes and url_origin (the site the file came from), the same as the download a call returned when it saved one. A download that was blocked or failed left no file and is not listed. " +
				"This only reads: it asks nobody, works during a takeover and does not open the browser.",
			readOnly:   true,
			idempotent: true,
			output: map[string]any{
				"download_dir": str("the directory the files are kept in"),
				"count":        map[string]any{"type": "integer", "description": "how many files are listed"},
				"downloads": map[string]any{"type": "array", "description": "the kept files, oldest first (at most 200)",
					"items": map[string]any{"type": "object", "properties": map[string]any{
						"filename": str(""), "path": str(""), "bytes": map[string]any{"type": "integer"}, "url_origin": str(""),
					}}},
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				l, err := m.ListDownloads(c.caller)
				if err != nil {
					return nil, err
				}
				list := make([]map[string]any, 0, len(l.Files))
				for _, f := range l.Files {
					list = append(list, map[string]any{"filename": f.Filename, "path": f.Path, "bytes": f.Bytes, "url_origin": f.URLOrigin})
				}
				return map[string]any{"download_dir": l.Dir, "count": len(list), "downloads": list}, nil
			},
		},
	}
}
