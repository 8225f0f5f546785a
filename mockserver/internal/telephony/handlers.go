package telephony

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"getConsent":      s.adminGetConsent,
		"setConsent":      s.adminSetConsent,
		"setDnc":          s.adminDNC,
		"inboundCall":     s.adminInboundCall,
		"inboundSms":      s.adminInboundSMS,
		"getPromptAudit":  s.adminPromptAudit,
		"getProviderCall": s.adminProviderCall,
		"listAllCalls":    s.adminCalls,
		"addScript":       s.adminAddScript,
		"listScript":      s.adminListScript,
		"clearScript":     s.adminClearScript,
		"getAgents":       s.getAgents,
		"updateAgent":     s.updateAgent,
		"createAgent":     s.createAgent,
		"getCalls":        s.getCalls,
		"createCall":      s.createCall,
		"getLeads":        s.getLeads,
		"updateLead":      s.updateLead,
		"listNumbers":     s.listNumbers,
		"listSmsMessages": s.listSMS,
		"sendSms":         s.sendSMSHandler,
		"updateSmsPrompt": s.updateSMSPrompt,
		"listTranscripts": s.listTranscripts,
		"listVoices":      s.listVoices,
	}
}
