package httpapi

import "sync"

// maxSelfDocuments bounds the documents selfDocuments keeps: when full, it
// starts again empty (a client naming the server by many Host names gets
// its documents built again, never an unbounded cache).
const maxSelfDocuments = 16

// selfDocuments caches the documents the server serves about itself (its
// OpenAPI documents, whose first server is the URL the request reached
// it under), built once per document and URL: building one decodes,
// bundles and encodes the whole document, tens of milliseconds.
type selfDocuments struct {
	mu   sync.Mutex
	docs map[selfDocumentKey][]byte
}

type selfDocumentKey struct{ name, url string }

// SelfDocument serves the document name of contentType that build makes
// for url (SelfURL, or a URL under it): the cached one when it was built
// for that URL before. The body is shared by the responses: nothing may
// change it.
func (rc *Ctx) SelfDocument(name, contentType, url string, build func(url string) ([]byte, error)) (*RawBody, error) {
	key := selfDocumentKey{name, url}
	d := &rc.API.selfDocs
	d.mu.Lock()
	b, ok := d.docs[key]
	d.mu.Unlock()
	if !ok {
		var err error
		if b, err = build(url); err != nil {
			return nil, err
		}
		d.mu.Lock()
		if d.docs == nil || len(d.docs) >= maxSelfDocuments {
			d.docs = map[selfDocumentKey][]byte{}
		}
		d.docs[key] = b
		d.mu.Unlock()
	}
	return &RawBody{ContentType: contentType, Body: b}, nil
}
