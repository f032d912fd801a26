/**
 * A MediaQueryList that answers `matches` for `query` and never changes: jsdom has no
 * matchMedia, and the theme, sonner and the toaster's position ask for it.
 */
export function staticMediaQueryList(query: string, matches: boolean): MediaQueryList {
  return {
    matches,
    media: query,
    onchange: null,
    addEventListener: () => {},
    removeEventListener: () => {},
    addListener: () => {},
    removeListener: () => {},
    dispatchEvent: () => false,
  } as unknown as MediaQueryList;
}
