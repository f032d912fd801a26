import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { Button } from "./button";

describe("Button while busy", () => {
  it("keeps the keyboard focus, and a press does nothing", async () => {
    const user = userEvent.setup();
    const onClick = vi.fn();
    const { rerender } = render(<Button onClick={onClick}>Resend SMS</Button>);
    const button = screen.getByRole("button", { name: "Resend SMS" });
    button.focus();
    rerender(
      <Button busy onClick={onClick}>
        Sending...
      </Button>,
    );
    expect(button).toHaveFocus();
    expect(button).toHaveAttribute("aria-disabled", "true");
    expect(button).toHaveAttribute("aria-busy", "true");
    await user.keyboard("{Enter}");
    await user.click(button);
    expect(onClick).not.toHaveBeenCalled();
  });

  it("a form's Enter does not submit it again while its submit button is busy", async () => {
    const user = userEvent.setup();
    const submitted = vi.fn();
    function Form() {
      const [busy, setBusy] = useState(false);
      return (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submitted();
            setBusy(true);
          }}
        >
          <label>
            Name <input name="name" />
          </label>
          <Button type="submit" busy={busy}>
            {busy ? "Saving..." : "Save"}
          </Button>
        </form>
      );
    }
    render(<Form />);
    await user.type(screen.getByLabelText("Name"), "Thandi{Enter}");
    await user.type(screen.getByLabelText("Name"), "{Enter}");
    expect(submitted).toHaveBeenCalledTimes(1);
  });
});
