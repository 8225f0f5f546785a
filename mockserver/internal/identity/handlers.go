package identity

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"createAccount":         s.adminAccounts,
		"copyAccount":           s.adminCopy,
		"deleteAccount":         s.adminDeleteAccount,
		"getSnapshot":           s.adminSnapshot,
		"restoreSnapshot":       s.adminRestore,
		"listOutbox":            s.adminOutbox,
		"exchangeMagicLink":     s.exchangeMagicLink,
		"readPasswordSetupLink": s.passwordSetupLink,
		"getOpenAPIDocument":    s.getOpenAPIYAML,
		"getBalance":            s.getBalance,
		"getCapabilities":       s.getCapabilities,
		"revokeKey":             s.revokeKey,
		"listKeys":              s.listKeys,
		"createKey":             s.createKey,
		"getOpenAPIContract":    s.getOpenAPIJSON,
		"getSchemas":            s.getSchemas,
		"signup":                s.signup,
		"listUsage":             s.listUsage,
	}
}

func (s *Service) adminSnapshot(rc *httpapi.Ctx) (any, error) {
	return s.Snapshot(rc.Query("business_id"))
}

func (s *Service) adminRestore(rc *httpapi.Ctx) (any, error) {
	doc, err := s.ParseSnapshot(rc.Body)
	if err != nil {
		return nil, err
	}
	if err := s.Restore(doc); err != nil {
		return nil, err
	}
	ids := make([]string, len(doc.Tenants))
	for i, t := range doc.Tenants {
		ids[i] = t.BusinessID
	}
	return map[string]any{"restored": ids, "server": doc.Server != nil}, nil
}

func (s *Service) adminCopy(rc *httpapi.Ctx) (any, error) {
	var body struct {
		BusinessID string `json:"business_id"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	cp, err := s.CopyTenant(body.BusinessID)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(cp), nil
}
