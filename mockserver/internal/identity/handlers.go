package identity

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"createAccount":         s.adminAccounts,
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
