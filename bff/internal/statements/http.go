package statements

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/session"
)

const (
	// pageSize is the transfers service's largest page.
	pageSize = 50
	// MaxTransfers bounds one statement (a year of the largest sender's history fits many times
	// over); past it the sender is asked for a shorter period rather than the BFF building an
	// unbounded file.
	MaxTransfers = 5000
)

// Handler serves the file endpoints with the session cookie, as the Connect API does.
type Handler struct {
	Logger    *slog.Logger
	Tokens    *session.Tokens
	Cookies   session.Cookies
	Transfers transfersv1.TransfersServiceClient
	Profiles  profilesv1.ProfilesServiceClient
	Fees      feesv1.FeesServiceClient
}

// httpError is an answer other than the file: a status and the text the sender reads.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func fail(w http.ResponseWriter, err error) {
	var he *httpError
	if !errors.As(err, &he) {
		he = &httpError{http.StatusInternalServerError, "Something went wrong, please try again."}
	}
	http.Error(w, he.msg, he.code)
}

// authed resolves the session cookie into the user and a context carrying their access token.
// A session cookie (or hint) that no longer opens a session is cleared with the 401, as the
// Connect API does.
func (h *Handler) authed(w http.ResponseWriter, r *http.Request) (context.Context, session.Grant, error) {
	g, err := h.Tokens.Grant(r.Context(), h.Cookies.Token(r.Header))
	if err != nil {
		if errors.Is(err, session.ErrNoSession) {
			h.Cookies.ClearStale(w.Header(), r.Header)
			return nil, session.Grant{}, &httpError{http.StatusUnauthorized, "You must be logged in to download this."}
		}
		return nil, session.Grant{}, h.fromService(r.Context(), err)
	}
	return auth.WithBearer(r.Context(), g.AccessToken), g, nil
}

// fromService maps a service's status to the HTTP answer, once, here at the edge.
func (h *Handler) fromService(ctx context.Context, err error) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.NotFound:
		return &httpError{http.StatusNotFound, "Transfer not found."}
	case codes.InvalidArgument:
		return &httpError{http.StatusBadRequest, st.Message()}
	case codes.Unauthenticated:
		return &httpError{http.StatusUnauthorized, "You must be logged in to download this."}
	case codes.PermissionDenied:
		return &httpError{http.StatusForbidden, st.Message()}
	case codes.ResourceExhausted:
		return &httpError{http.StatusTooManyRequests, st.Message()}
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		h.Logger.WarnContext(ctx, "statements: a service is unavailable", "err", err)
		// The same words as the app's banner: a download is money information too.
		return &httpError{http.StatusServiceUnavailable, rpcerr.UnavailableMessage}
	}
	h.Logger.ErrorContext(ctx, "statements: internal error", "err", err)
	return &httpError{http.StatusInternalServerError, "Something went wrong, please try again."}
}

func (h *Handler) sender(ctx context.Context, g session.Grant) (Sender, error) {
	res, err := h.Profiles.GetProfile(ctx, &profilesv1.GetProfileRequest{})
	if err != nil {
		return Sender{}, h.fromService(ctx, err)
	}
	p := res.GetProfile()
	return Sender{Name: strings.TrimSpace(p.GetFirstName() + " " + p.GetLastName()), Email: g.Email}, nil
}

// bankNames are the fees service's display names; without them the enum's name is shown.
func (h *Handler) bankNames(ctx context.Context) map[int32]string {
	out := map[int32]string{}
	if h.Fees == nil {
		return out
	}
	res, err := h.Fees.ListBanks(ctx, &feesv1.ListBanksRequest{})
	if err != nil {
		h.Logger.WarnContext(ctx, "statements: could not read the banks' names", "err", err)
		return out
	}
	for _, b := range res.GetBanks() {
		out[int32(b.GetBank())] = b.GetDisplayName()
	}
	return out
}

func attach(w http.ResponseWriter, contentType, name string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, name))
	// nosniff, as on every answer: httpx.SecurityHeaders, around the whole server.
	_, _ = w.Write(body)
}

// Statement serves GET /api/statement?from=YYYY-MM-DD&to=YYYY-MM-DD&format=csv|pdf.
func (h *Handler) Statement(w http.ResponseWriter, r *http.Request) {
	// Who asks comes first: a signed-out caller is told only that, whatever the query.
	ctx, g, err := h.authed(w, r)
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query()
	format := q.Get("format")
	if format != "csv" && format != "pdf" {
		fail(w, &httpError{http.StatusBadRequest, "Choose the format: csv or pdf."})
		return
	}
	p, err := ParsePeriod(q.Get("from"), q.Get("to"))
	if err != nil {
		fail(w, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	ts, err := h.list(ctx, p)
	if err != nil {
		fail(w, err)
		return
	}
	if format == "csv" {
		var b strings.Builder
		if err := WriteCSV(&b, ts); err != nil {
			fail(w, err)
			return
		}
		attach(w, "text/csv; charset=utf-8", p.FileName("csv"), []byte(b.String()))
		return
	}
	s, err := h.sender(ctx, g)
	if err != nil {
		fail(w, err)
		return
	}
	pdf, err := StatementPDF(s, p, ts)
	if err != nil {
		h.Logger.ErrorContext(ctx, "statements: rendering the statement failed", "err", err)
		fail(w, err)
		return
	}
	attach(w, "application/pdf", p.FileName("pdf"), pdf)
}

// list pages through the sender's transfers in p, oldest first. The window ends no later than
// now, so a transfer created while the pages are read cannot shift them.
func (h *Handler) list(ctx context.Context, p Period) ([]Transfer, error) {
	end := p.End()
	if now := Now(); now.Before(end) {
		end = now
	}
	var out []Transfer
	if !end.After(p.Start()) {
		return out, nil // a period in the future
	}
	banks := h.bankNames(ctx)
	for page := int32(1); ; page++ {
		res, err := h.Transfers.ListTransfers(ctx, &transfersv1.ListTransfersRequest{
			Page: page, PageSize: pageSize,
			CreatedFrom: timestamppb.New(p.Start()), CreatedBefore: timestamppb.New(end),
		})
		if err != nil {
			return nil, h.fromService(ctx, err)
		}
		if res.GetTotalCount() > MaxTransfers {
			return nil, &httpError{http.StatusBadRequest, fmt.Sprintf("This period has more than %d transfers: choose a shorter period.", MaxTransfers)}
		}
		for _, t := range res.GetTransfers() {
			out = append(out, FromProto(t, banks))
		}
		if len(res.GetTransfers()) < pageSize || len(out) >= int(res.GetTotalCount()) {
			break
		}
	}
	// Newest first from the service; a statement reads oldest first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// ProofOfPayment serves GET /api/transfers/{id}/proof-of-payment.pdf: another user's or an
// unknown id answers 404; a transfer not completed, or one whose voucher was cancelled or
// expired and whose money is being or was refunded, 409 with the reason (ProofRefusal) and no
// PDF.
func (h *Handler) ProofOfPayment(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx, g, err := h.authed(w, r)
	if err != nil {
		fail(w, err)
		return
	}
	res, err := h.Transfers.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: id})
	if err != nil {
		fail(w, h.fromService(ctx, err))
		return
	}
	t := FromProto(res.GetTransfer(), h.bankNames(ctx))
	if msg := ProofRefusal(t); msg != "" {
		fail(w, &httpError{http.StatusConflict, msg})
		return
	}
	s, err := h.sender(ctx, g)
	if err != nil {
		fail(w, err)
		return
	}
	pdf, err := ProofPDF(s, t)
	if err != nil {
		h.Logger.ErrorContext(ctx, "statements: rendering the proof of payment failed", "err", err)
		fail(w, err)
		return
	}
	ref := strings.Map(func(r rune) rune {
		if r < '0' || (r > '9' && r < 'A') || (r > 'Z' && r < 'a') || r > 'z' {
			return -1
		}
		return r
	}, t.Reference)
	attach(w, "application/pdf", "thumela-proof-of-payment-"+ref+".pdf", pdf)
}
