package tools

import (
	"context"
)

func downloadTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "list_downloads",
			title: "List downloaded files",
			description: "The files this session kept, oldest first. " +
				"A read.",
			readOnly:   true,
			idempotent: true,
			output:     map[string]any{"download_dir": sStr(""), "count": sInt(""), "downloads": sArr("filename, path, bytes, url_origin; at most 200")},
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
