import type { ComponentType } from "react";
import { createBrowserRouter } from "react-router";
import type { RouteObject } from "react-router";
import { AuthLayout } from "@/components/layout/auth-layout";
import { PublicShell } from "@/components/layout/public-shell";
import LandingPage from "./routes/public/landing";
import { PageLoading, RootLayout, RouteError } from "./routes/root";
import type { RouteHandle } from "./routes/root";
import { STATIC_PAGES } from "./routes/public/static-pages";

/**
 * Every route of the spec's route table. The landing page and its shells are in the first
 * download; every other page is fetched when first visited, which keeps the landing page's
 * first load small.
 */
function page(load: () => Promise<{ default: ComponentType }>) {
  return async () => ({ Component: (await load()).default });
}

/**
 * A route's tab title. Where the page's heading names the page, the title is that heading, in
 * the spec's words and casing ("Forgot Password | Thumela" over the heading "Forgot Password").
 */
const title = (text: string): RouteHandle => ({ title: text });

export const routes: RouteObject[] = [
  {
    id: "root",
    Component: RootLayout,
    ErrorBoundary: RouteError,
    HydrateFallback: PageLoading,
    children: [
      {
        Component: PublicShell,
        children: [
          { index: true, Component: LandingPage },
          ...STATIC_PAGES.map(({ path, title: text }) => ({
            path,
            handle: title(text),
            lazy: page(() => import("./routes/public/static-page")),
          })),
          { path: "/blog/:id", handle: title("Blog"), lazy: page(() => import("./routes/public/static-page")) },
          { path: "*", handle: title("Page not found"), lazy: page(() => import("./routes/not-found")) },
        ],
      },
      {
        Component: AuthLayout,
        children: [
          { path: "/login", handle: title("Log in"), lazy: page(() => import("./routes/auth/login")) },
          { path: "/signup", handle: title("Create Your Account"), lazy: page(() => import("./routes/auth/signup")) },
          {
            path: "/otp-verification",
            handle: title("Verify Your Identity"),
            lazy: page(() => import("./routes/auth/otp-verification")),
          },
          {
            path: "/forgot-password",
            handle: title("Forgot Password"),
            lazy: page(() => import("./routes/auth/forgot-password")),
          },
        ],
      },
      { path: "/logout", handle: title("Logging out"), lazy: page(() => import("./routes/logout")) },
      {
        // The app's frame. /help is public too: in the public shell for a visitor, in this frame
        // when signed in, under the same layout route as the sidebar's other pages so that going
        // between them keeps the frame (and the focus) rather than mounting a new one.
        lazy: page(() => import("./routes/app/layout")),
        children: [
          {
            path: "/help",
            handle: { ...title("Help Center"), openToVisitors: true },
            lazy: page(() => import("./routes/help/help")),
          },
          { path: "/dashboard", handle: title("Dashboard"), lazy: page(() => import("./routes/app/dashboard")) },
          { path: "/send-money", handle: title("Send Money"), lazy: page(() => import("./routes/app/send-money")) },
          { path: "/recipients", handle: title("Recipients"), lazy: page(() => import("./routes/app/recipients")) },
          {
            path: "/payment-methods",
            handle: title("Payment Methods"),
            lazy: page(() => import("./routes/app/payment-methods")),
          },
          {
            path: "/transactions",
            handle: title("Transaction History"),
            lazy: page(() => import("./routes/app/transactions")),
          },
          { path: "/account", handle: title("Account"), lazy: page(() => import("./routes/app/account")) },
          { path: "/refer-friend", handle: title("Refer a Friend"), lazy: page(() => import("./routes/app/refer-friend")) },
          {
            path: "/beta-features",
            handle: title("BETA Features"),
            lazy: page(() => import("./routes/app/beta-features")),
          },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
