package httpapi

import (
	"net/http"

	"github.com/carteiro/carteiro/internal/ratelimit"
)

// Route is one entry of the route table.
type Route struct {
	Method string
	Path   string // ServeMux pattern path, e.g. /v1/product/domains/{id}
	// Auth tells whether the route needs an API key.
	Auth bool
	// Session tells whether the route needs a dashboard session (and, on
	// unsafe methods, its CSRF token; D73).
	Session bool
	handler func(w http.ResponseWriter, r *http.Request)
	// limit is an extra per-organization rule (DELETE /domains/:id, D13).
	limit *routeLimit
	// secretPath marks a path that carries a secret token: the request log
	// shows the route's pattern instead of the path.
	secretPath bool
}

type routeLimit struct {
	name string
	rule func(s *Server) ratelimit.Rule
}

func (s *Server) routeTable() []Route {
	p := ProductPrefix
	deletions := &routeLimit{name: "domain_delete", rule: func(s *Server) ratelimit.Rule { return s.Limits.DomainDeletions }}
	return []Route{
		{Method: http.MethodGet, Path: "/healthz", handler: s.healthz},
		{Method: http.MethodGet, Path: "/readyz", handler: s.readyz},
		{Method: http.MethodGet, Path: "/metrics", handler: s.metrics},
		{Method: http.MethodGet, Path: p + "/openapi.json", handler: s.openAPI},
		{Method: http.MethodGet, Path: "/t/o/{token}", handler: s.trackOpen},
		{Method: http.MethodGet, Path: "/t/c/{token}", handler: s.trackClick},
		{Method: http.MethodGet, Path: "/u/{token}", handler: s.unsubscribeConfirm},
		{Method: http.MethodPost, Path: "/u/{token}", handler: s.unsubscribe},
		{Method: http.MethodGet, Path: "/senders/confirm/{token}", handler: s.senderConfirmForm, secretPath: true},
		{Method: http.MethodPost, Path: "/senders/confirm/{token}", handler: s.senderConfirm, secretPath: true},

		{Method: http.MethodPost, Path: p + "/domains", Auth: true, handler: s.createDomain},
		{Method: http.MethodGet, Path: p + "/domains", Auth: true, handler: s.listDomains},
		{Method: http.MethodGet, Path: p + "/domains/{id}", Auth: true, handler: s.getDomain},
		{Method: http.MethodPost, Path: p + "/domains/{id}/verify", Auth: true, handler: s.verifyDomain},
		{Method: http.MethodDelete, Path: p + "/domains/{id}", Auth: true, handler: s.deleteDomain, limit: deletions},
		{Method: http.MethodGet, Path: p + "/domains/{id}/warmup", Auth: true, handler: s.domainWarmup},
		{Method: http.MethodPost, Path: p + "/domains/{id}/inbound", Auth: true, handler: s.setDomainInbound},
		{Method: http.MethodPost, Path: p + "/domains/{id}/health", Auth: true, handler: s.domainHealth},

		{Method: http.MethodGet, Path: p + "/inbound-emails", Auth: true, handler: s.listInboundEmails},
		{Method: http.MethodGet, Path: p + "/inbound-emails/{id}", Auth: true, handler: s.getInboundEmail},
		{Method: http.MethodGet, Path: p + "/inbound-emails/{id}/raw", Auth: true, handler: s.getInboundRaw},
		{Method: http.MethodGet, Path: p + "/inbound-emails/{id}/attachments/{attachmentId}", Auth: true, handler: s.getInboundAttachment},
		{Method: http.MethodDelete, Path: p + "/inbound-emails/{id}", Auth: true, handler: s.deleteInboundEmail},
		{Method: http.MethodPost, Path: p + "/emails", Auth: true, handler: s.sendEmail},
		{Method: http.MethodPost, Path: p + "/emails/batch", Auth: true, handler: s.sendBatch},
		{Method: http.MethodGet, Path: p + "/emails", Auth: true, handler: s.listEmails},
		{Method: http.MethodGet, Path: p + "/emails/tags", Auth: true, handler: s.emailTags},
		{Method: http.MethodGet, Path: p + "/emails/{id}", Auth: true, handler: s.getEmail},
		{Method: http.MethodGet, Path: p + "/emails/{id}/events", Auth: true, handler: s.emailEvents},
		{Method: http.MethodPost, Path: p + "/emails/{id}/cancel", Auth: true, handler: s.cancelEmail},
		{Method: http.MethodPost, Path: p + "/emails/{id}/resend", Auth: true, handler: s.resendEmail},

		{Method: http.MethodPost, Path: p + "/senders", Auth: true, handler: s.createSender},
		{Method: http.MethodGet, Path: p + "/senders", Auth: true, handler: s.listSenders},
		{Method: http.MethodPost, Path: p + "/senders/verify", Auth: true, handler: s.verifySender},
		{Method: http.MethodDelete, Path: p + "/senders/{id}", Auth: true, handler: s.deleteSender},

		{Method: http.MethodPost, Path: p + "/webhooks", Auth: true, handler: s.createWebhook},
		{Method: http.MethodGet, Path: p + "/webhooks", Auth: true, handler: s.listWebhooks},
		{Method: http.MethodGet, Path: p + "/webhooks/{id}", Auth: true, handler: s.getWebhook},
		{Method: http.MethodPut, Path: p + "/webhooks/{id}", Auth: true, handler: s.updateWebhook},
		{Method: http.MethodPatch, Path: p + "/webhooks/{id}", Auth: true, handler: s.patchWebhook},
		{Method: http.MethodDelete, Path: p + "/webhooks/{id}", Auth: true, handler: s.deleteWebhook},
		{Method: http.MethodGet, Path: p + "/webhooks/{id}/deliveries", Auth: true, handler: s.webhookDeliveries},
		{Method: http.MethodPost, Path: p + "/webhooks/{id}/test", Auth: true, handler: s.testWebhook},
		{Method: http.MethodPost, Path: p + "/webhooks/{id}/rotate-secret", Auth: true, handler: s.rotateWebhookSecret},

		{Method: http.MethodGet, Path: p + "/stats", Auth: true, handler: s.stats},

		{Method: http.MethodPost, Path: p + "/audiences", Auth: true, handler: s.createAudience},
		{Method: http.MethodGet, Path: p + "/audiences", Auth: true, handler: s.listAudiences},
		{Method: http.MethodGet, Path: p + "/audiences/{id}", Auth: true, handler: s.getAudience},
		{Method: http.MethodPut, Path: p + "/audiences/{id}", Auth: true, handler: s.updateAudience},
		{Method: http.MethodDelete, Path: p + "/audiences/{id}", Auth: true, handler: s.deleteAudience},
		{Method: http.MethodPost, Path: p + "/audiences/{id}/contacts", Auth: true, handler: s.createContact},
		{Method: http.MethodGet, Path: p + "/audiences/{id}/contacts", Auth: true, handler: s.listContacts},
		{Method: http.MethodPost, Path: p + "/audiences/{id}/contacts/bulk", Auth: true, handler: s.importContacts},
		{Method: http.MethodPut, Path: p + "/audiences/{id}/contacts/{contactId}", Auth: true, handler: s.updateContact},
		{Method: http.MethodDelete, Path: p + "/audiences/{id}/contacts/{contactId}", Auth: true, handler: s.deleteContact},

		{Method: http.MethodPost, Path: p + "/broadcasts", Auth: true, handler: s.createBroadcast},
		{Method: http.MethodGet, Path: p + "/broadcasts", Auth: true, handler: s.listBroadcasts},
		{Method: http.MethodGet, Path: p + "/broadcasts/{id}", Auth: true, handler: s.getBroadcast},
		{Method: http.MethodPost, Path: p + "/broadcasts/{id}/send", Auth: true, handler: s.sendBroadcast},
		{Method: http.MethodPost, Path: p + "/broadcasts/{id}/cancel", Auth: true, handler: s.cancelBroadcast},

		{Method: http.MethodPost, Path: p + "/templates", Auth: true, handler: s.createTemplate},
		{Method: http.MethodGet, Path: p + "/templates", Auth: true, handler: s.listTemplates},
		{Method: http.MethodPost, Path: p + "/templates/preview", Auth: true, handler: s.previewTemplate},
		{Method: http.MethodPost, Path: p + "/templates/format", Auth: true, handler: s.formatTemplate},
		{Method: http.MethodPost, Path: p + "/templates/test-render", Auth: true, handler: s.testRenderTemplate},
		{Method: http.MethodGet, Path: p + "/templates/{id}", Auth: true, handler: s.getTemplate},
		{Method: http.MethodPatch, Path: p + "/templates/{id}", Auth: true, handler: s.updateTemplate},
		{Method: http.MethodDelete, Path: p + "/templates/{id}", Auth: true, handler: s.deleteTemplate},

		{Method: http.MethodGet, Path: p + "/suppressions", Auth: true, handler: s.listSuppressions},
		{Method: http.MethodPost, Path: p + "/suppressions", Auth: true, handler: s.createSuppression},
		{Method: http.MethodGet, Path: p + "/suppressions/{id}", Auth: true, handler: s.getSuppression},
		{Method: http.MethodDelete, Path: p + "/suppressions/{id}", Auth: true, handler: s.deleteSuppression},
		{Method: http.MethodPost, Path: p + "/suppressions/{id}/reactivate", Auth: true, handler: s.reactivateSuppression},

		{Method: http.MethodPost, Path: p + "/privacy/erase", Auth: true, handler: s.erasePerson},
	}
}
