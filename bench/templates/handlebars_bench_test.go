// Package templates benchmarks template rendering (issue: templates).
// Run: go test -run '^$' -bench . -benchmem -cpu 1 ./bench/templates/
package templates

import (
	"context"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/render/handlebars"
)

// receipt is a realistic transactional email: about 5 KB of HTML with 10
// variables, an {{#each}} and an {{#if}}.
func receipt() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>{{subject}}</title>
<style>body{font-family:Helvetica,Arial,sans-serif;background:#f4f4f4;margin:0;padding:0}.card{background:#fff;border-radius:8px;padding:24px}</style></head>
<body><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table class="card" width="600"><tr><td><h1 style="font-size:22px;color:#222">Olá, {{customer.firstName}} {{customer.lastName}}!</h1>
<p style="font-size:15px;color:#444">Recebemos o seu pedido <strong>#{{order.number}}</strong> em {{order.date}}.</p>
<table width="100%" style="border-collapse:collapse">
{{#each order.items}}<tr><td style="padding:8px;border-bottom:1px solid #eee">{{qty}} × {{title}}</td><td align="right" style="padding:8px;border-bottom:1px solid #eee">{{price}}</td></tr>
{{/each}}</table>
<p style="font-size:15px">Total: <strong>{{order.total}}</strong></p>
{{#if customer.vip}}<p style="color:#0a0">Frete grátis para clientes VIP.</p>{{else}}<p><a href="{{upgradeUrl}}">Torne-se VIP</a></p>{{/if}}
`)
	for b.Len() < 4800 {
		b.WriteString(`<p style="font-size:13px;color:#888;line-height:1.5">Dúvidas? Responda a este email ou fale com {{supportEmail}}. Este é um email transacional sobre a sua compra.</p>` + "\n")
	}
	b.WriteString(`<p style="font-size:12px;color:#aaa">{{company}} · <a href="{{unsubscribeUrl}}">Preferências</a></p></td></tr></table></td></tr></table></body></html>`)
	return b.String()
}

func receiptData() map[string]any {
	items := []any{}
	for i, t := range []string{"Café em grão 1 kg", "Caneca <esmaltada>", "Filtro de papel & suporte"} {
		items = append(items, map[string]any{"qty": float64(i + 1), "title": t, "price": "R$ 49,90"})
	}
	return map[string]any{
		"subject":        "Seu pedido",
		"customer":       map[string]any{"firstName": "Ana", "lastName": "Souza", "vip": false},
		"order":          map[string]any{"number": "10042", "date": "25/11/2026", "items": items, "total": "R$ 149,70"},
		"upgradeUrl":     "https://loja.example/vip?c=10042&src=email",
		"supportEmail":   "ajuda@loja.example",
		"company":        "Loja Exemplo Ltda.",
		"unsubscribeUrl": "https://loja.example/u/abc",
	}
}

func BenchmarkHandlebars5KB10Vars(b *testing.B) {
	src := receipt()
	tpl, err := handlebars.Compile(src)
	if err != nil {
		b.Fatal(err)
	}
	data := receiptData()
	limits := render.DefaultLimits()
	ctx := context.Background()
	out, err := tpl.Render(ctx, data, limits)
	if err != nil || !strings.Contains(out, "Caneca &lt;esmaltada&gt;") {
		b.Fatalf("render: %v", err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tpl.Render(ctx, data, limits); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "renders/s")
}

func BenchmarkHandlebarsCompile5KB(b *testing.B) {
	src := receipt()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := handlebars.Compile(src); err != nil {
			b.Fatal(err)
		}
	}
}
