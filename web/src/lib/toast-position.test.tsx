import { createRouterTransport } from "@connectrpc/connect";
import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Dialog as DialogPrimitive } from "radix-ui";
import { toast } from "sonner";
import { describe, expect, it, vi } from "vitest";
import { AppProvider } from "@/app/provider";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { staticMediaQueryList } from "@/test/media-query";
import { NARROW_QUERY } from "./toast-position";

/** A screen `width` px wide, as far as matchMedia tells (the only media query asked is width). */
function screenWidth(width: number) {
  vi.spyOn(window, "matchMedia").mockImplementation((query: string) => staticMediaQueryList(query, query === NARROW_QUERY && width < 768));
}

function Page() {
  return (
    <Dialog>
      <DialogPrimitive.Trigger asChild>
        <button type="button">Open</button>
      </DialogPrimitive.Trigger>
      <DialogContent title="Transaction Details">
        <button type="button">Send Similar</button>
      </DialogContent>
    </Dialog>
  );
}

function renderPage() {
  const user = userEvent.setup();
  render(
    <AppProvider transport={createRouterTransport(() => {})}>
      <Page />
    </AppProvider>,
  );
  return user;
}

/** Where the toast titled `title` shows: its list's "{y}-{x}" position ("bottom-right"). */
function side(title: string): string | undefined {
  const item = [...document.querySelectorAll("[data-sonner-toast]")].find((el) => el.textContent?.includes(title));
  const list = item?.closest("[data-sonner-toaster]");
  return list ? `${list.getAttribute("data-y-position")}-${list.getAttribute("data-x-position")}` : undefined;
}

/** The gap above the toasts on a narrow screen (sonner's --offset-top and --mobile-offset-top). */
function topGap(): string[] {
  const list = document.querySelector<HTMLElement>("[data-sonner-toaster]");
  return [list?.style.getPropertyValue("--offset-top") ?? "", list?.style.getPropertyValue("--mobile-offset-top") ?? ""];
}

/** Raises a toast and waits until it shows at `position` (and, when given, `top` from the top). */
async function expectToastAt(title: string, position: string, top?: string) {
  act(() => {
    toast.success(title);
  });
  await waitFor(() => expect(side(title)).toBe(position));
  if (top) expect(topGap()).toEqual([top, top]);
}

describe("toast position", () => {
  it("on a phone, shows toasts at the top, off the actions at the bottom: under the header, or near the edge over a dialog", async () => {
    screenWidth(390);
    const user = renderPage();
    // The result panel's "Back to Dashboard" and "Send Another Transfer" sit at the bottom as
    // "Transfer initiated" arrives: the toast shows under the sticky header instead.
    await expectToastAt("Transfer initiated", "top-center", "72px");

    await user.click(screen.getByRole("button", { name: "Open" }));
    await screen.findByRole("dialog", { name: "Transaction Details" });
    await expectToastAt("Reference number copied to clipboard", "top-center", "16px");
    // The toaster's live region is sonner's, wherever the toasts are.
    expect(document.querySelector("[data-sonner-toaster]")?.closest("[aria-live]")).toHaveAttribute("aria-live", "polite");

    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    await expectToastAt("After the dialog", "top-center", "72px");
  });

  it("just under 768 px it is a phone too", async () => {
    screenWidth(767);
    const user = renderPage();
    await user.click(screen.getByRole("button", { name: "Open" }));
    await screen.findByRole("dialog", { name: "Transaction Details" });
    await expectToastAt("Saved", "top-center");
  });

  it("on a wider screen, keeps toasts at the bottom right, dialog or not", async () => {
    screenWidth(1280);
    const user = renderPage();
    await user.click(screen.getByRole("button", { name: "Open" }));
    await screen.findByRole("dialog", { name: "Transaction Details" });
    await expectToastAt("Reference number copied to clipboard", "bottom-right");
  });
});
