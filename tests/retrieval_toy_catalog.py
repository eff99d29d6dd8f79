"""A small hand-written catalog for fast, self-contained retrieval and state tests.

Twelve endpoints across eight domains, with summaries in all six languages and the distractor kinds
real catalogs have (a deprecated version, a destructive look-alike, the same verb in another domain).
"""

from __future__ import annotations

from runtime.catalog.model import Catalog, Endpoint, FieldSpec


def _f(name: str, json_type: str, semantic_id: str, **extra: object) -> FieldSpec:
    return FieldSpec.model_validate(
        {
            "name": name,
            "json_type": json_type,
            "semantic_id": semantic_id,
            "description": name.replace("_", " "),
            **extra,
        }
    )


def _e(route_id: str, summary: str, summaries: dict[str, str], **extra: object) -> Endpoint:
    data: dict[str, object] = {
        "route_id": route_id,
        "name": route_id.replace(".", "_"),
        "domain": route_id.split(".")[0],
        "summary": summary,
        "description": "",
        "summaries": {"en": summary, **summaries},
        "inputs": (),
        "outputs": (),
        "side_effect": "read",
        "errors": (),
    }
    data.update(extra)
    return Endpoint.model_validate(data)


LAT = _f("latitude", "number", "geo.latitude", unit="deg", dimension="angle")
LON = _f("longitude", "number", "geo.longitude", unit="deg", dimension="angle")

ENDPOINTS: tuple[Endpoint, ...] = (
    _e(
        "geo.geocode.v1",
        "Find the coordinates of a place or landmark by its name.",
        {
            "es": "Encuentra las coordenadas de un lugar o monumento por su nombre.",
            "de": "Findet die Koordinaten eines Ortes oder Wahrzeichens anhand seines Namens.",
            "ko": "장소나 랜드마크의 이름으로 좌표를 찾습니다.",
            "ja": "場所やランドマークの名前から座標を調べます。",
            "zh": "根据名称查找地点或地标的坐标。",
        },
        inputs=(_f("place_name", "string", "geo.place_name"),),
        outputs=(LAT, LON, _f("place_id", "string", "geo.place_id", stable_identifier=True)),
        errors=("NOT_FOUND",),
    ),
    _e(
        "weather.forecast.daily.v2",
        "Daily weather forecast (temperature, rain) for coordinates.",
        {
            "es": "Pronóstico del tiempo diario (temperatura, lluvia) para unas coordenadas.",
            "de": "Tägliche Wettervorhersage (Temperatur, Regen) für Koordinaten.",
            "ko": "좌표에 대한 일일 날씨 예보(기온, 비)를 제공합니다.",
            "ja": "座標の毎日の天気予報（気温、雨）を返します。",
            "zh": "提供指定坐标的每日天气预报（气温、降雨）。",
        },
        inputs=(LAT, LON),
        outputs=(
            _f(
                "temperature_max",
                "number",
                "weather.temperature",
                unit="degC",
                dimension="temperature",
                qualifier="daily_max",
            ),
        ),
        errors=("MISSING_INPUT", "INVALID_TYPE"),
    ),
    _e(
        "weather.forecast.daily.v1",
        "Daily weather forecast for coordinates (old version).",
        {
            "es": "Pronóstico del tiempo diario para coordenadas (versión antigua).",
            "de": "Tägliche Wettervorhersage für Koordinaten (alte Version).",
            "ko": "좌표의 일일 날씨 예보(구버전).",
            "ja": "座標の毎日の天気予報（旧版）。",
            "zh": "坐标的每日天气预报（旧版）。",
        },
        inputs=(LAT, LON),
        outputs=(_f("temp_max", "number", "weather.temperature", unit="degF", dimension="temperature"),),
        deprecated=True,
    ),
    _e(
        "units.temperature.convert.v1",
        "Convert a temperature between Celsius and Fahrenheit.",
        {
            "es": "Convierte una temperatura entre Celsius y Fahrenheit.",
            "de": "Rechnet eine Temperatur zwischen Celsius und Fahrenheit um.",
            "ko": "섭씨와 화씨 사이에서 온도를 변환합니다.",
            "ja": "摂氏と華氏の間で温度を変換します。",
            "zh": "在摄氏度和华氏度之间转换温度。",
        },
        inputs=(_f("value", "number", "weather.temperature", unit="degC", dimension="temperature"),),
        outputs=(_f("converted", "number", "weather.temperature", unit="degF", dimension="temperature"),),
        errors=("UNIT_MISMATCH",),
    ),
    _e(
        "commerce.order.create.v1",
        "Place a new order for a product.",
        {
            "es": "Realiza un nuevo pedido de un producto.",
            "de": "Gibt eine neue Bestellung für ein Produkt auf.",
            "ko": "상품을 새로 주문합니다.",
            "ja": "商品の新しい注文を作成します。",
            "zh": "为商品创建新订单。",
        },
        inputs=(_f("product_id", "string", "commerce.product_id"),),
        outputs=(_f("order_id", "string", "commerce.order_id", stable_identifier=True),),
        side_effect="write",
        errors=("CONFLICT", "AUTH_EXPIRED"),
    ),
    _e(
        "commerce.order.cancel.v1",
        "Cancel an order and delete it permanently.",
        {
            "es": "Cancela un pedido y lo elimina definitivamente.",
            "de": "Storniert eine Bestellung und löscht sie endgültig.",
            "ko": "주문을 취소하고 영구 삭제합니다.",
            "ja": "注文を取り消して完全に削除します。",
            "zh": "取消订单并永久删除。",
        },
        inputs=(_f("order_id", "string", "commerce.order_id"),),
        side_effect="destructive",
        errors=("NOT_FOUND",),
    ),
    _e(
        "commerce.order.archive.v1",
        "Archive an order so it no longer shows in the active list.",
        {
            "es": "Archiva un pedido para que ya no aparezca en la lista activa.",
            "de": "Archiviert eine Bestellung, damit sie nicht mehr in der aktiven Liste erscheint.",
            "ko": "주문을 보관하여 활성 목록에서 숨깁니다.",
            "ja": "注文をアーカイブして一覧に表示されないようにします。",
            "zh": "归档订单，使其不再显示在活动列表中。",
        },
        inputs=(_f("order_id", "string", "commerce.order_id"),),
        side_effect="write",
    ),
    _e(
        "payments.refund.create.v1",
        "Refund a payment to the customer.",
        {
            "es": "Reembolsa un pago al cliente.",
            "de": "Erstattet dem Kunden eine Zahlung.",
            "ko": "고객에게 결제 금액을 환불합니다.",
            "ja": "顧客に支払いを返金します。",
            "zh": "向客户退还付款。",
        },
        inputs=(_f("payment_id", "string", "payments.payment_id"),),
        side_effect="destructive",
    ),
    _e(
        "payments.refund.quote.v1",
        "Quote how much a refund of a payment would be, without refunding.",
        {
            "es": "Calcula cuánto sería el reembolso de un pago, sin reembolsar.",
            "de": "Berechnet, wie hoch eine Erstattung wäre, ohne zu erstatten.",
            "ko": "환불하지 않고 결제 환불 예상 금액을 계산합니다.",
            "ja": "返金せずに支払いの返金見積もりを出します。",
            "zh": "估算付款退款金额，但不实际退款。",
        },
        inputs=(_f("payment_id", "string", "payments.payment_id"),),
        outputs=(_f("amount", "number", "money.amount", unit="EUR", dimension="currency"),),
    ),
    _e(
        "auth.token.refresh.v1",
        "Refresh an expired access token.",
        {
            "es": "Renueva un token de acceso caducado.",
            "de": "Erneuert ein abgelaufenes Zugriffstoken.",
            "ko": "만료된 액세스 토큰을 갱신합니다.",
            "ja": "期限切れのアクセストークンを更新します。",
            "zh": "刷新已过期的访问令牌。",
        },
        outputs=(_f("access_token", "string", "auth.access_token", stable_identifier=True),),
    ),
    _e(
        "calendar.event.create.v1",
        "Create a calendar event at a date and time.",
        {
            "es": "Crea un evento en el calendario en una fecha y hora.",
            "de": "Erstellt einen Kalendertermin zu einem Datum und einer Uhrzeit.",
            "ko": "날짜와 시간에 캘린더 일정을 만듭니다.",
            "ja": "日付と時刻にカレンダーの予定を作成します。",
            "zh": "在指定日期和时间创建日历事件。",
        },
        inputs=(_f("start_time", "string", "time.datetime"),),
        outputs=(_f("event_id", "string", "calendar.event_id", stable_identifier=True),),
        side_effect="write",
    ),
    _e(
        "fx.rate.convert.v1",
        "Convert an amount of money from one currency to another.",
        {
            "es": "Convierte una cantidad de dinero de una moneda a otra.",
            "de": "Rechnet einen Geldbetrag von einer Währung in eine andere um.",
            "ko": "금액을 한 통화에서 다른 통화로 환전합니다.",
            "ja": "金額をある通貨から別の通貨に換算します。",
            "zh": "将一笔金额从一种货币换算成另一种货币。",
        },
        inputs=(_f("amount", "number", "money.amount", unit="USD", dimension="currency"),),
        outputs=(_f("converted_amount", "number", "money.amount", unit="EUR", dimension="currency"),),
        errors=("RATE_LIMITED",),
    ),
)

TOY_CATALOG = Catalog(size=len(ENDPOINTS), endpoints=tuple(sorted(ENDPOINTS, key=lambda e: e.route_id)))
