package azure

import (
	"net/url"
	"strconv"
)

// page answers one page of a list: {"value": [...], "nextLink": "..."}.
// The nextLink repeats the request with $skiptoken set to the next offset,
// so every page is read under the lock from the store as it is then (as
// ARM's continuation tokens do, a page can see changes made between pages).
// $top, when given, lowers the page size.
func (c *Cloud) page(req *Request, items []*Resource) (*wireReply, *Error) {
	q := req.HTTP.URL.Query()
	offset := 0
	if tok := q.Get("$skiptoken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			return nil, BadRequest("InvalidSkipToken", "The $skiptoken '%s' is invalid.", tok)
		}
		offset = n
	}
	size := c.PageSize
	if top := q.Get("$top"); top != "" {
		if n, err := strconv.Atoi(top); err == nil && n > 0 && n < size {
			size = n
		}
	}
	values := []map[string]any{}
	for i := offset; i < len(items) && i < offset+size; i++ {
		values = append(values, c.render(items[i]))
	}
	body := map[string]any{"value": values}
	if offset+size < len(items) {
		q.Set("$skiptoken", strconv.Itoa(offset+size))
		next := url.URL{Path: req.HTTP.URL.Path, RawQuery: q.Encode()}
		body["nextLink"] = baseURL(req.HTTP) + next.RequestURI()
	}
	return &wireReply{status: 200, body: body}, nil
}

// PageOf is page for handlers whose lists are not stored resources (role
// definitions rendered on the fly): values are already in wire form.
func (c *Cloud) pageValues(req *Request, values []any) (*wireReply, *Error) {
	q := req.HTTP.URL.Query()
	offset, _ := strconv.Atoi(q.Get("$skiptoken"))
	size := c.PageSize
	end := min(len(values), offset+size)
	if offset > end {
		offset = end
	}
	body := map[string]any{"value": append([]any{}, values[offset:end]...)}
	if end < len(values) {
		q.Set("$skiptoken", strconv.Itoa(end))
		next := url.URL{Path: req.HTTP.URL.Path, RawQuery: q.Encode()}
		body["nextLink"] = baseURL(req.HTTP) + next.RequestURI()
	}
	return &wireReply{status: 200, body: body}, nil
}
