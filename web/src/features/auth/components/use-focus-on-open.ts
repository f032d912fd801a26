import { useEffect } from "react";

/**
 * Puts keyboard focus in a screen's first field when the screen (or its step) opens: the login
 * and sign-up forms, the e-mailed code's screen, each step of the password reset. Left alone the
 * focus stayed on the page's body, and a keyboard user had to Tab from the top to reach the one
 * field the screen asks for. A field that already has the focus (the user typing before the page
 * finished loading) keeps it.
 */
export function useFocusOnOpen(id: string) {
  useEffect(() => {
    const active = document.activeElement;
    if (active instanceof HTMLElement && active.matches("input, textarea, select, [contenteditable='true']")) return;
    document.getElementById(id)?.focus();
  }, [id]);
}
