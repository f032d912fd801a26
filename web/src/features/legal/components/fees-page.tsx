import { Link } from "react-router";
import { InfoTable, PageSection, PublicPage, proseLink } from "@/components/layout/public-shell-page";
import { BANK_FEES, PLATFORM_FEE_TEXT, feeExample, platformFeeCents } from "@/lib/fee-schedule";
import { LimitText } from "@/components/limit-text";
import { formatMoney } from "@/lib/money";
import { DOCUMENTS_LAST_UPDATED } from "@/lib/site";

const EXAMPLE_AMOUNT_CENTS = 50_000;

export default function FeesPage() {
  const examples = BANK_FEES.map((bank) => feeExample(bank, EXAMPLE_AMOUNT_CENTS));
  return (
    <PublicPage
      title="Fee Schedule"
      updated={DOCUMENTS_LAST_UPDATED}
      lead={`What a transfer costs: the recipient bank's cash-send fee plus a ${PLATFORM_FEE_TEXT} platform fee. Your first transfer is free.`}
    >
      <PageSection id="first-transfer" title="Your first transfer is free">
        <p>
          Your first transfer carries no bank fee and no platform fee. The confirmation step shows the usual fee struck
          through.
        </p>
      </PageSection>

      <PageSection id="bank-fees" title="Bank cash-send fees">
        <p>You pay the cash-send fee of the bank whose ATM your recipient will use, plus our platform fee.</p>
        <InfoTable
          caption="Fees per bank"
          columns={["Bank", "Bank fee per transfer", "Platform fee"]}
          rows={BANK_FEES.map((bank) => [bank.bank, formatMoney(bank.baseFeeCents), `${PLATFORM_FEE_TEXT} of the amount`])}
        />
        <p>
          The platform fee is rounded to the nearest cent; for example it is {formatMoney(platformFeeCents(100_000))} on{" "}
          {formatMoney(100_000)}. There are no other fees: no sign-up fee, no monthly fee, and no fee for your recipient to
          withdraw.
        </p>
      </PageSection>

      <PageSection id="examples" title={`Examples: sending ${formatMoney(EXAMPLE_AMOUNT_CENTS)}`}>
        <InfoTable
          caption={`Fees when sending ${formatMoney(EXAMPLE_AMOUNT_CENTS)}`}
          columns={["Bank", "Bank fee", "Platform fee", "Total fees", "You pay"]}
          rows={examples.map((row) => [row.bank, row.bankFee, row.platformFee, row.totalFee, row.total])}
        />
      </PageSection>

      <PageSection id="refunds" title="Refunds">
        <p>
          If you cancel a voucher before it is collected, or it expires uncollected after 7 days, we refund the amount and the
          fee in full.
        </p>
      </PageSection>

      <PageSection id="notes" title="Good to know">
        <p>
          Fees are confirmed by the app before you pay and may change if a bank changes its rates; we update this page when
          they do. <LimitText text="Transfers range from {limit:minimum} to {limit:perTransfer};" /> see all{" "}
          <Link to="/compliance#limits" className={proseLink}>
            transfer limits
          </Link>
          .
        </p>
      </PageSection>
    </PublicPage>
  );
}
