package dashboard

// pageCSP is the policy of every dashboard page (D73): only the binary's own
// scripts and styles, no inline code, data only from this origin, frames
// only from the same origin (the email viewer route, itself sandboxed), and
// no page may frame the dashboard.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; " +
	"frame-ancestors 'none'"

// viewerCSP is the policy of an email shown in the viewer: the CSP sandbox
// (no scripts, forms, popups, navigation, same-origin access) repeats the
// iframe's sandbox attribute so that opening the route directly is as safe;
// inline styles are allowed because emails are styled inline; images only
// from data: and cid-less sources until the user asks for remote ones.
func viewerCSP(remoteImages bool) string {
	img := "data:"
	if remoteImages {
		img = "data: https: http:"
	}
	return "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src " + img +
		"; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'"
}
