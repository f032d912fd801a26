import { screen, waitFor } from "@testing-library/react";
import { expect } from "vitest";

/**
 * Waits for a toast with this title (and description, when given). Sonner keeps its toasts in
 * module state, so one from an earlier test in the same file may still be on its way out:
 * match the whole toast, not just one text.
 */
export async function expectToast(title: string, description?: string): Promise<HTMLElement> {
  let found: HTMLElement | undefined;
  await waitFor(() => {
    const toasts = screen.queryAllByRole("listitem").filter((item) => item.hasAttribute("data-sonner-toast"));
    found = toasts.find((item) => {
      const text = item.textContent ?? "";
      return text.includes(title) && (description === undefined || text.includes(description));
    });
    expect(found, `no toast "${title}"${description ? ` / "${description}"` : ""}`).toBeDefined();
  });
  return found!;
}

/** Waits until no toast with this title is on screen (a dismissed one leaves after its exit). */
export async function expectNoToast(title: string): Promise<void> {
  await waitFor(() => {
    const toasts = screen.queryAllByRole("listitem").filter((item) => item.hasAttribute("data-sonner-toast"));
    expect(toasts.filter((item) => (item.textContent ?? "").includes(title)).map((item) => item.textContent)).toEqual([]);
  });
}
