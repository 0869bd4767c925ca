// The words of the chat page in Japanese and English, the labels of the demo catalogs'
// result columns (any other column shows its own name), and example questions per catalog.
"use strict";

const TEXT = {
  ja: {
    tagline: "データベースに日本語・英語で質問できます。",
    userName: "ユーザー名", password: "パスワード", signIn: "サインイン", signOut: "サインアウト",
    signInHint: "初回の concierge serve がターミナルに表示したパスワードを使います(変更: concierge user set-password 名前)。",
    badSignIn: "ユーザー名かパスワードが違います。",
    tooManySignIns: (s) => `サインインの失敗が続いたため、${s} 秒後にもう一度お試しください。`,
    newChat: "+ 新しい会話", conversations: "会話", noConversations: "まだ会話はありません。",
    welcome: "質問を入力してください。Enter で送信、Shift+Enter で改行。例:",
    placeholder: "質問を入力 (Enter で送信 / Shift+Enter で改行)", send: "送信",
    thinking: "考えています…", calling: "呼び出し中", rows: (n) => `${n} 行`,
    trace: "トレース", calls: (n) => `${n} 件の呼び出し`, tool: "ツール", args: "引数", decision: "判定",
    resultId: "結果 ID", rowCount: "行数", ms: "ms", ungrounded: "根拠が確認できない数値:",
    decide: "判断", firstText: "回答の最初まで", totalTime: "合計",
    confirmTitle: "書き込む前の確認", confirm: "確定", cancel: "取消", working: "処理中…",
    settled_confirmed: "確定しました", settledNote_confirmed: "この内容で書き込みました。",
    settled_failed: "書き込めませんでした", settledNote_failed: "何も書き込んでいません。下の回答に理由があります。",
    settled_changed: "内容が変わりました", settledNote_changed: "何も書き込んでいません。新しい内容を下に表示しています。",
    settled_cancelled: "取り消しました", settledNote_cancelled: "何も書き込んでいません。",
    settled_replaced: "新しい内容に置き換わりました", settledNote_replaced: "この内容では書き込んでいません。下の新しい確認をご覧ください。",
    settled_dropped: "取り下げました", settledNote_dropped: "別のご依頼があったため、この内容では書き込んでいません。",
    settled_expired: "期限切れです", settledNote_expired: "何も書き込んでいません。もう一度ご依頼ください。",
    settled_gone: "この確認はもう有効ではありません", settledNote_gone: "何も書き込んでいません。",
    waiting: "確認待ち", today: "基準日", total: "合計", count: "件数", truncated: (a, b) => `${b} 行中 ${a} 行を表示`,
    current: "今期", previous: "前期", change: "増減", error: "エラー", network: "サーバーに接続できません。",
    notFound: "この会話は見つかりません。",
  },
  en: {
    tagline: "Ask your business database in Japanese or English.",
    userName: "User name", password: "Password", signIn: "Sign in", signOut: "Sign out",
    signInHint: "Use the password the first `concierge serve` printed in its terminal (change it: concierge user set-password NAME).",
    badSignIn: "Wrong user name or password.",
    tooManySignIns: (s) => `Too many failed sign-ins: try again in ${s} seconds.`,
    newChat: "+ New chat", conversations: "Conversations", noConversations: "No conversations yet.",
    welcome: "Type a question. Enter sends, Shift+Enter starts a new line. For example:",
    placeholder: "Ask a question (Enter to send, Shift+Enter for a new line)", send: "Send",
    thinking: "Thinking…", calling: "calling", rows: (n) => `${n} row${n === 1 ? "" : "s"}`,
    trace: "Trace", calls: (n) => `${n} call${n === 1 ? "" : "s"}`, tool: "Tool", args: "Arguments",
    decision: "Decision", resultId: "Result id", rowCount: "Rows", ms: "ms", ungrounded: "Numbers not found in any result:",
    decide: "deciding", firstText: "first text", totalTime: "total",
    confirmTitle: "Check before it is written", confirm: "Confirm", cancel: "Cancel", working: "Working…",
    settled_confirmed: "Confirmed", settledNote_confirmed: "Written with these values.",
    settled_failed: "Not written", settledNote_failed: "Nothing was written; the answer below says why.",
    settled_changed: "The values changed", settledNote_changed: "Nothing was written; the new values are shown below.",
    settled_cancelled: "Cancelled", settledNote_cancelled: "Nothing was written.",
    settled_replaced: "Replaced", settledNote_replaced: "Not written with these values; see the new card below.",
    settled_dropped: "Dropped", settledNote_dropped: "Another request came first, so nothing was written.",
    settled_expired: "Expired", settledNote_expired: "Nothing was written; ask again.",
    settled_gone: "No longer waiting", settledNote_gone: "Nothing was written.",
    waiting: "waiting for confirmation", today: "today", total: "Total", count: "Count",
    truncated: (a, b) => `showing ${a} of ${b} rows`, current: "Current", previous: "Previous", change: "Change",
    error: "Error", network: "Cannot reach the server.", notFound: "This conversation was not found.",
  },
};

const LABELS = {
  ja: {
    code_customer: "顧客コード", name_customer: "氏名", address: "住所", phone: "電話番号", code_sales: "販売番号",
    date_sales: "販売日", products: "商品", price: "金額", product: "商品", category: "カテゴリ",
    cur_amount: "今期", prev_amount: "前期", change: "増減", amount: "売上金額", quantity: "数量", date: "日付",
    date_sales_str: "販売日",
  },
  en: {
    code_customer: "Customer code", name_customer: "Name", address: "Address", phone: "Phone",
    code_sales: "Sales number", date_sales: "Date", products: "Products", price: "Price", product: "Product",
    category: "Category", cur_amount: "Current", prev_amount: "Previous", change: "Change", amount: "Amount",
    quantity: "Quantity", date: "Date", date_sales_str: "Date",
  },
};

const EXAMPLES = {
  farm: {
    ja: ["佐藤さんの顧客コードを教えて。", "顧客コード0009と0010の、先週の販売データを見せて。"],
    en: ["What are the customer codes of customers named Sato?", "Show last week's sales of customers 0009 and 0010."],
  },
  pos: {
    ja: ["先週から売上が落ちた商品は？", "今月の日別売上の推移を見せて。"],
    en: ["Which products sold less than the week before?", "Show daily sales this month."],
  },
};
