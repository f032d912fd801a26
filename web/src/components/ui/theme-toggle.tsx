import { Monitor, Moon, Sun } from "lucide-react";
import { useTheme } from "@/lib/theme";
import type { ThemePreference } from "@/lib/theme";

const NEXT: Record<ThemePreference, ThemePreference> = { light: "dark", dark: "system", system: "light" };
const LABEL: Record<ThemePreference, string> = { light: "Light", dark: "Dark", system: "System" };
const ICON = { light: Sun, dark: Moon, system: Monitor };

/** Cycles the theme light → dark → system; the accessible name says the current choice. */
export function ThemeToggle() {
  const { preference, setPreference } = useTheme();
  const Icon = ICON[preference];
  return (
    <button
      type="button"
      onClick={() => setPreference(NEXT[preference])}
      aria-label={`Theme: ${LABEL[preference]}. Switch to ${LABEL[NEXT[preference]]}`}
      title={`Theme: ${LABEL[preference]}`}
      className="inline-flex size-10 shrink-0 items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
    >
      <Icon aria-hidden="true" className="size-5" />
    </button>
  );
}
