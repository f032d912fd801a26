import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { periodError, proofOfPaymentUrl, statementUrl, thisMonth } from "../lib/statement";
import { StatementDialog } from "./statement-dialog";

describe("statement period", () => {
  it("defaults to this month in Johannesburg", () => {
    // 23:30 UTC on 30 November is already 1 December in Johannesburg.
    expect(thisMonth(new Date("2026-11-30T23:30:00Z"))).toEqual({ from: "2026-12-01", to: "2026-12-31" });
    expect(thisMonth(new Date("2028-02-10T10:00:00Z"))).toEqual({ from: "2028-02-01", to: "2028-02-29" });
  });
  it("checks the server's rules", () => {
    expect(periodError("2026-01-01", "2026-12-31")).toBeUndefined();
    expect(periodError("2026-01-01", "2027-01-01")).toBe("A statement covers at most 12 months.");
    expect(periodError("2026-11-30", "2026-11-01")).toBe("The last day is before the first day.");
    expect(periodError("", "2026-11-01")).toBe("Choose the first and the last day.");
  });
  it("builds the endpoints' links", () => {
    expect(statementUrl("2026-11-01", "2026-11-30", "csv")).toBe("/api/statement?from=2026-11-01&to=2026-11-30&format=csv");
    expect(proofOfPaymentUrl("a/b")).toBe("/api/transfers/a%2Fb/proof-of-payment.pdf");
  });
});

describe("StatementDialog", () => {
  it("offers a download link for the chosen period and format, and explains a bad period", async () => {
    const user = userEvent.setup();
    render(<StatementDialog />);
    await user.click(screen.getByRole("button", { name: "Download statement" }));
    const from = screen.getByLabelText("From");
    const to = screen.getByLabelText("To");
    await user.clear(from);
    await user.type(from, "2026-11-01");
    await user.clear(to);
    await user.type(to, "2026-11-30");
    await user.click(screen.getByRole("radio", { name: "CSV (spreadsheet)" }));
    expect(screen.getByRole("link", { name: "Download" })).toHaveAttribute(
      "href",
      "/api/statement?from=2026-11-01&to=2026-11-30&format=csv",
    );
    await user.clear(to);
    await user.type(to, "2026-10-01");
    expect(screen.getByRole("alert")).toHaveTextContent("The last day is before the first day.");
    expect(screen.queryByRole("link", { name: "Download" })).toBeNull();
    expect(screen.getByRole("button", { name: "Download" })).toBeDisabled();
  });
});
