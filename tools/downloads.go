package tools

import (
	"context"
)

type downloadsReply struct {
	DownloadDir string          `json:"download_dir"`
	Count       int             `json:"count"`
	Downloads   []downloadEntry `json:"downloads" desc:"filename, path, bytes, url_origin; at most 200"`
}

// downloadEntry is a file the session kept.
type downloadEntry struct {
	Filename  string `json:"filename"`
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	URLOrigin string `json:"url_origin"`
}

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
			output:     outOf[downloadsReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				l, err := m.ListDownloads(c.caller)
				if err != nil {
					return nil, err
				}
				list := make([]downloadEntry, 0, len(l.Files))
				for _, f := range l.Files {
					list = append(list, downloadEntry{Filename: f.Filename, Path: f.Path, Bytes: f.Bytes, URLOrigin: f.URLOrigin})
				}
				return downloadsReply{DownloadDir: l.Dir, Count: len(list), Downloads: list}, nil
			},
		},
	}
}
