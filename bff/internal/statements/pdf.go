package statements

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// The PDFs are drawn with github.com/signintech/gopdf (maintained, pure Go, embeds and subsets
// TrueType fonts with a ToUnicode map, so the text can be searched and read back) in the Go
// fonts (golang.org/x/image, BSD): no font file to ship or to find on the host.

const (
	fontRegular = "go"
	fontBold    = "go-bold"
	margin      = 36.0 // half an inch
)

// Now is the clock of the "Generated" line; tests may replace it.
var Now = time.Now

type doc struct {
	*gopdf.GoPdf
	width, height float64
	y             float64
	err           error
	// replaced: some text had a character the font cannot draw, shown as "?" (missingNote).
	replaced bool
}

// missingNote closes a PDF in which a "?" stands for a character the Go fonts lack: they draw
// Latin, Greek and Cyrillic, and a recipient's name may be in another script (the name rule
// allows any). Without it such a name came out blank, with no sign that anything was left out.
const missingNote = "A ? stands for a character this PDF's font cannot draw; Thumela's app and the CSV export show it in full."

// goGlyphs says whether the Go fonts draw r (regular and bold cover the same characters).
var goGlyphs = sync.OnceValue(func() func(rune) bool {
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		panic(err) // the font is compiled in: it always parses
	}
	var buf sfnt.Buffer
	var mu sync.Mutex
	return func(r rune) bool {
		mu.Lock()
		defer mu.Unlock()
		i, err := f.GlyphIndex(&buf, r)
		return err == nil && i != 0
	}
})

// drawable replaces in s each character the font cannot draw with "?", noting that it did.
func (d *doc) drawable(s string) string {
	has := goGlyphs()
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || has(r) {
			return r
		}
		d.replaced = true
		return '?'
	}, s)
}

// note closes the PDF with missingNote when some text was replaced.
func (d *doc) note() {
	if !d.replaced {
		return
	}
	d.y += 12
	d.font(false, 8)
	d.text(margin, d.width-2*margin, missingNote, false)
}

func newDoc(size *gopdf.Rect) (*doc, error) {
	p := &gopdf.GoPdf{}
	p.Start(gopdf.Config{PageSize: *size, Unit: gopdf.UnitPT})
	if err := p.AddTTFFontData(fontRegular, goregular.TTF); err != nil {
		return nil, err
	}
	if err := p.AddTTFFontData(fontBold, gobold.TTF); err != nil {
		return nil, err
	}
	p.SetCompressLevel(6)
	return &doc{GoPdf: p, width: size.W, height: size.H}, nil
}

// font sets the font; errors are kept and reported once by bytes.
func (d *doc) font(bold bool, size float64) {
	name := fontRegular
	if bold {
		name = fontBold
	}
	if err := d.SetFont(name, "", size); err != nil && d.err == nil {
		d.err = err
	}
}

// text writes s at (x, d.y) within width w, aligned left or right, cut to fit.
func (d *doc) text(x, w float64, s string, right bool) {
	s = d.fit(d.drawable(s), w)
	opt := gopdf.CellOption{Align: gopdf.Left | gopdf.Top}
	if right {
		opt.Align = gopdf.Right | gopdf.Top
	}
	d.SetXY(x, d.y)
	if err := d.CellWithOption(&gopdf.Rect{W: w, H: 12}, s, opt); err != nil && d.err == nil {
		d.err = err
	}
}

// fit cuts s (with an ellipsis) to width w in the current font.
func (d *doc) fit(s string, w float64) string {
	if tw, err := d.MeasureTextWidth(s); err != nil || tw <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if tw, err := d.MeasureTextWidth(string(r) + "…"); err == nil && tw <= w {
			break
		}
	}
	return string(r) + "…"
}

func (d *doc) rule() {
	d.SetStrokeColor(200, 200, 200)
	d.SetLineWidth(0.5)
	d.Line(margin, d.y, d.width-margin, d.y)
}

// header draws Thumela's band and a title at the top of a page.
func (d *doc) header(title string) {
	d.SetFillColor(4, 120, 87) // the brand's emerald
	d.RectFromUpperLeftWithStyle(0, 0, d.width, 56, "F")
	d.SetTextColor(255, 255, 255)
	d.y = 18
	d.font(true, 20)
	d.text(margin, 200, "Thumela", false)
	d.font(false, 10)
	d.text(d.width-margin-300, 300, title, true)
	d.SetTextColor(30, 41, 59)
	d.y = 76
}

func (d *doc) bytes() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	var b bytes.Buffer
	if _, err := d.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// column of the statement's table.
type column struct {
	title string
	width float64
	right bool
	value func(Transfer) string
}

// StatementPDF renders the statement: Thumela's header, the sender, the period, every
// transfer (oldest first) with its fee breakdown, status and voucher state, and the totals.
func StatementPDF(s Sender, p Period, ts []Transfer) ([]byte, error) {
	d, err := newDoc(gopdf.PageSizeA4Landscape)
	if err != nil {
		return nil, err
	}
	fee := func(cents int64, waived bool) string {
		if waived {
			return "Waived"
		}
		return Money(cents)
	}
	cols := []column{
		{"Date", 70, false, func(t Transfer) string { return t.CreatedAt.Format("2006-01-02 15:04") }},
		{"Reference", 50, false, func(t Transfer) string { return t.Reference }},
		{"Recipient", 110, false, func(t Transfer) string { return t.Recipient }},
		{"Phone", 70, false, func(t Transfer) string { return t.MaskedPhone }},
		{"Bank", 58, false, func(t Transfer) string { return t.Bank }},
		{"Amount", 58, true, func(t Transfer) string { return Money(t.AmountCents) }},
		// What was charged (Transfer.Charged): nothing for a failed transfer.
		{"Bank fee", 50, true, func(t Transfer) string { b, _, _ := t.Charged(); return fee(b, t.FeeWaived) }},
		{"Platform fee", 56, true, func(t Transfer) string { _, p, _ := t.Charged(); return fee(p, t.FeeWaived) }},
		{"Total", 60, true, func(t Transfer) string { _, _, total := t.Charged(); return Money(total) }},
		{"Status", 52, false, func(t Transfer) string { return t.Status }},
		{"Voucher", 0, false, func(t Transfer) string { return t.VoucherState }},
	}
	used := 0.0
	for _, c := range cols[:len(cols)-1] {
		used += c.width + 4
	}
	cols[len(cols)-1].width = d.width - 2*margin - used

	page := 0
	tableHead := func() {
		d.font(true, 8)
		x := margin
		for _, c := range cols {
			d.text(x, c.width, c.title, c.right)
			x += c.width + 4
		}
		d.y += 14
		d.rule()
		d.y += 4
	}
	newPage := func() {
		d.AddPage()
		page++
		d.header("Statement")
		if page == 1 {
			d.font(true, 14)
			d.text(margin, 400, "Statement of transfers", false)
			d.y += 20
			d.font(false, 10)
			d.text(margin, 500, s.Name, false)
			d.y += 14
			d.text(margin, 500, s.Email, false)
			d.y += 14
			d.text(margin, 500, fmt.Sprintf("Period: %s to %s", longDate(p.From), longDate(p.To)), false)
			d.y += 14
			d.font(false, 8)
			d.text(margin, 500, "Times are South African (Africa/Johannesburg). Generated "+Now().In(Johannesburg).Format("2 January 2006 15:04")+".", false)
			d.y += 22
		}
		tableHead()
	}
	newPage()
	if len(ts) == 0 {
		d.font(false, 10)
		d.text(margin, 500, "No transfers in this period.", false)
		d.y += 16
	}
	for _, t := range ts {
		if d.y > d.height-margin-20 {
			newPage()
		}
		d.font(false, 8)
		x := margin
		for _, c := range cols {
			d.text(x, c.width, c.value(t), c.right)
			x += c.width + 4
		}
		d.y += 14
	}

	tot := Sum(ts)
	if d.y > d.height-margin-110 {
		newPage()
	}
	d.y += 6
	d.rule()
	d.y += 10
	d.font(true, 11)
	d.text(margin, 300, "Totals", false)
	d.y += 18
	lines := [][2]string{
		{"Transfers in the period", fmt.Sprintf("%d", tot.Count)},
		// Money that reached or awaits a recipient: a cancelled or expired voucher's is not.
		{"Sent (to recipients, refunds excluded)", Money(tot.SentCents)},
		{"Fees", Money(tot.FeesCents)},
		{"Total charged", Money(tot.ChargedCents)},
		{"Refunded", Money(tot.RefundedCents)},
	}
	if tot.RefundPendingCents != 0 {
		lines = append(lines, [2]string{"Refund pending", Money(tot.RefundPendingCents)})
	}
	for _, l := range lines {
		d.font(false, 10)
		d.text(margin, 200, l[0], false)
		d.font(true, 10)
		d.text(margin+200, 100, l[1], true)
		d.y += 15
	}
	d.note()
	return d.bytes()
}

// ProofPDF renders the proof of payment of a completed transfer whose money reached or awaits
// its recipient (Transfer.Sent): never the voucher number or PIN (Transfer has neither). A
// transfer not completed is ErrNotCompleted; one cancelled or expired, refunded or being
// refunded, ErrNotSent: no document may say a refunded send was paid.
func ProofPDF(s Sender, t Transfer) ([]byte, error) {
	if !t.Completed {
		return nil, ErrNotCompleted
	}
	if !t.Sent() {
		return nil, ErrNotSent
	}
	d, err := newDoc(gopdf.PageSizeA4)
	if err != nil {
		return nil, err
	}
	d.AddPage()
	d.header("Proof of payment")
	d.font(true, 16)
	d.text(margin, 400, "Proof of payment", false)
	d.y += 26
	d.font(false, 10)
	d.text(margin, 500, "Thumela confirms the cash send below was paid.", false)
	d.y += 24

	fee := func(cents int64) string {
		if t.FeeWaived {
			return Money(0) + " (waived)"
		}
		return Money(cents)
	}
	rows := [][2]string{
		{"Reference", t.Reference},
		{"Date", t.CreatedAt.Format("2 January 2006 15:04") + " (South African time)"},
		{"Sender", s.Name},
		{"Recipient", t.Recipient},
		{"Recipient's phone", t.MaskedPhone},
		{"Bank", t.Bank},
		{"Amount", Money(t.AmountCents)},
		{"Bank fee", fee(t.BankFeeCents)},
		{"Platform fee", fee(t.PlatformFeeCents)},
		{"Total paid", Money(t.TotalCents)},
		{"Status", t.Status},
	}
	voucher := t.VoucherState
	if voucher == "Collected" && !t.CollectedAt.IsZero() {
		voucher += " on " + t.CollectedAt.Format("2 January 2006 15:04")
	}
	if voucher != "" {
		rows = append(rows, [2]string{"Voucher", voucher})
	}
	for _, r := range rows {
		d.font(false, 11)
		d.text(margin, 150, r[0], false)
		d.font(true, 11)
		d.text(margin+160, d.width-2*margin-160, r[1], false)
		d.y += 18
		d.rule()
		d.y += 6
	}
	d.y += 12
	d.font(false, 8)
	d.text(margin, d.width-2*margin, "For the sender's records. The voucher number and PIN are never shown here: only the recipient receives them.", false)
	d.y += 12
	d.text(margin, d.width-2*margin, "Generated "+Now().In(Johannesburg).Format("2 January 2006 15:04")+" (South African time).", false)
	d.note()
	return d.bytes()
}

func longDate(t time.Time) string { return t.Format("2 January 2006") }
