import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ThemeToggle } from "@/components/ui/theme-toggle";
import { ThemeProvider } from "./theme";

type Listener = (event: { matches: boolean }) => void;

function fakeSystemTheme(dark: boolean) {
  const listeners = new Set<Listener>();
  const query = {
    matches: dark,
    addEventListener: (_: string, listener: Listener) => listeners.add(listener),
    removeEventListener: (_: string, listener: Listener) => listeners.delete(listener),
  };
  vi.spyOn(window, "matchMedia").mockImplementation(() => query as unknown as MediaQueryList);
  return {
    set(next: boolean) {
      query.matches = next;
      listeners.forEach((listener) => listener({ matches: next }));
    },
  };
}

describe("theme", () => {
  afterEach(() => document.documentElement.classList.remove("dark"));

  it("defaults to system and follows the operating system live", () => {
    const system = fakeSystemTheme(false);
    render(<ThemeProvider>{null}</ThemeProvider>);
    expect(document.documentElement).not.toHaveClass("dark");
    act(() => system.set(true));
    expect(document.documentElement).toHaveClass("dark");
    act(() => system.set(false));
    expect(document.documentElement).not.toHaveClass("dark");
  });

  it("applies and saves the chosen theme under the key 'theme'", async () => {
    fakeSystemTheme(false);
    window.localStorage.setItem("theme", "dark");
    render(
      <ThemeProvider>
        <ThemeToggle />
      </ThemeProvider>,
    );
    expect(document.documentElement).toHaveClass("dark");

    await userEvent.click(screen.getByRole("button", { name: /^Theme: Dark/ }));
    expect(window.localStorage.getItem("theme")).toBe("system");
    expect(document.documentElement).not.toHaveClass("dark");

    await userEvent.click(screen.getByRole("button", { name: /^Theme: System/ }));
    expect(window.localStorage.getItem("theme")).toBe("light");
  });

  it("ignores an unknown stored value", () => {
    fakeSystemTheme(true);
    window.localStorage.setItem("theme", "purple");
    render(<ThemeProvider>{null}</ThemeProvider>);
    expect(document.documentElement).toHaveClass("dark");
  });
});
