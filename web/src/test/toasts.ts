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
