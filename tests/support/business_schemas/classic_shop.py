"""A Northwind-like food wholesaler: categories, suppliers, products, customers with text codes, orders, order lines.

What it holds that a careless draft gets wrong: customers keyed by five-letter codes ('AROUT' is Around
the Horn, 'FRANK' is Frankenversand); order lines with a composite key and a discount kept as a
fraction (REAL), so sales are unit_price * quantity * (1 - discount); product prices and stock that
must never be summed; two employees called Margaret (together they sold more than the top seller,
each alone did not); orders not shipped yet (shipped_date NULL); order dates with a time.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import sqlalchemy as sa

from business_schemas import Question, load, scalar

TODAY = date(2025, 6, 18)  # a Wednesday: last month is May 2025, last week 2025-06-09 .. 2025-06-15
SEED = 1996
FIRST_ORDER = 10248

metadata = sa.MetaData()
MONEY = sa.Numeric(10, 2)

categories = sa.Table("categories", metadata,
                      sa.Column("category_id", sa.Integer, primary_key=True, autoincrement=False),
                      sa.Column("category_name", sa.String(15), nullable=False),
                      sa.Column("description", sa.Text))
suppliers = sa.Table("suppliers", metadata,
                     sa.Column("supplier_id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("company_name", sa.String(40), nullable=False),
                     sa.Column("city", sa.String(15)),
                     sa.Column("country", sa.String(15)))
products = sa.Table("products", metadata,
                    sa.Column("product_id", sa.Integer, primary_key=True, autoincrement=False),
                    sa.Column("product_name", sa.String(40), nullable=False),
                    sa.Column("supplier_id", sa.Integer, sa.ForeignKey("suppliers.supplier_id")),
                    sa.Column("category_id", sa.Integer, sa.ForeignKey("categories.category_id")),
                    sa.Column("quantity_per_unit", sa.String(20)),
                    sa.Column("unit_price", MONEY),
                    sa.Column("units_in_stock", sa.SmallInteger),
                    sa.Column("reorder_level", sa.SmallInteger),
                    sa.Column("discontinued", sa.Boolean, nullable=False))
customers = sa.Table("customers", metadata,
                     sa.Column("customer_id", sa.String(5), primary_key=True),
                     sa.Column("company_name", sa.String(40), nullable=False),
                     sa.Column("contact_name", sa.String(30)),
                     sa.Column("contact_title", sa.String(30)),
                     sa.Column("city", sa.String(15)),
                     sa.Column("country", sa.String(15)))
employees = sa.Table("employees", metadata,
                     sa.Column("employee_id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("last_name", sa.String(20), nullable=False),
                     sa.Column("first_name", sa.String(10), nullable=False),
                     sa.Column("title", sa.String(30)),
                     sa.Column("hire_date", sa.Date))
orders = sa.Table("orders", metadata,
                  sa.Column("order_id", sa.Integer, primary_key=True, autoincrement=False),
                  sa.Column("customer_id", sa.String(5), sa.ForeignKey("customers.customer_id"), index=True),
                  sa.Column("employee_id", sa.Integer, sa.ForeignKey("employees.employee_id"), index=True),
                  sa.Column("order_date", sa.DateTime),
                  sa.Column("required_date", sa.DateTime),
                  sa.Column("shipped_date", sa.DateTime),
                  sa.Column("freight", MONEY),
                  sa.Column("ship_city", sa.String(15)),
                  sa.Column("ship_country", sa.String(15)))
order_details = sa.Table("order_details", metadata,
                         sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.order_id"), primary_key=True),
                         sa.Column("product_id", sa.Integer, sa.ForeignKey("products.product_id"), primary_key=True),
                         sa.Column("unit_price", MONEY, nullable=False),
                         sa.Column("quantity", sa.SmallInteger, nullable=False),
                         sa.Column("discount", sa.Float, nullable=False))

CATEGORIES = [
    ("Beverages", "Soft drinks, coffees, teas, beers, and ales"),
    ("Condiments", "Sweet and savory sauces, relishes, spreads, and seasonings"),
    ("Confections", "Desserts, candies, and sweet breads"),
    ("Dairy Products", "Cheeses"),
    ("Grains/Cereals", "Breads, crackers, pasta, and cereal"),
    ("Meat/Poultry", "Prepared meats"),
    ("Produce", "Dried fruit and bean curd"),
    ("Seafood", "Seaweed and fish"),
]
SUPPLIERS = [
    ("Exotic Liquids", "London", "UK"), ("New Orleans Cajun Delights", "New Orleans", "USA"),
    ("Grandma Kelly's Homestead", "Ann Arbor", "USA"), ("Tokyo Traders", "Tokyo", "Japan"),
    ("Cooperativa de Quesos 'Las Cabras'", "Oviedo", "Spain"), ("Mayumi's", "Osaka", "Japan"),
    ("Pavlova, Ltd.", "Melbourne", "Australia"), ("Specialty Biscuits, Ltd.", "Manchester", "UK"),
    ("PB Knäckebröd AB", "Göteborg", "Sweden"), ("Refrescos Americanas LTDA", "São Paulo", "Brazil"),
    ("Heli Süßwaren GmbH & Co. KG", "Berlin", "Germany"), ("Plutzer Lebensmittelgroßmärkte AG", "Frankfurt", "Germany"),
    ("Nord-Ost-Fisch Handelsgesellschaft mbH", "Cuxhaven", "Germany"), ("Formaggi Fortini s.r.l.", "Ravenna", "Italy"),
    ("Norske Meierier", "Sandvika", "Norway"), ("Bigfoot Breweries", "Bend", "USA"),
    ("Svensk Sjöföda AB", "Stockholm", "Sweden"), ("Aux joyeux ecclésiastiques", "Paris", "France"),
    ("New England Seafood Cannery", "Boston", "USA"), ("Leka Trading", "Singapore", "Singapore"),
    ("Lyngbysild", "Lyngby", "Denmark"), ("Zaanse Snoepfabriek", "Zaandam", "Netherlands"),
    ("Karkki Oy", "Lappeenranta", "Finland"), ("G'day, Mate", "Sydney", "Australia"),
    ("Ma Maison", "Montréal", "Canada"), ("Pasta Buttini s.r.l.", "Salerno", "Italy"),
    ("Escargots Nouveaux", "Montceau", "France"), ("Gai pâturage", "Annecy", "France"),
    ("Forêts d'érables", "Ste-Hyacinthe", "Canada"),
]
PRODUCTS = [  # name, supplier, category, unit price, discontinued
    ("Chai", 1, 1, "18.00", False), ("Chang", 1, 1, "19.00", False), ("Aniseed Syrup", 1, 2, "10.00", False),
    ("Chef Anton's Cajun Seasoning", 2, 2, "22.00", False), ("Chef Anton's Gumbo Mix", 2, 2, "21.35", True),
    ("Grandma's Boysenberry Spread", 3, 2, "25.00", False), ("Uncle Bob's Organic Dried Pears", 3, 7, "30.00", False),
    ("Northwoods Cranberry Sauce", 3, 2, "40.00", False), ("Mishi Kobe Niku", 4, 6, "97.00", True),
    ("Ikura", 4, 8, "31.00", False), ("Queso Cabrales", 5, 4, "21.00", False),
    ("Queso Manchego La Pastora", 5, 4, "38.00", False), ("Konbu", 6, 8, "6.00", False), ("Tofu", 6, 7, "23.25", False),
    ("Genen Shouyu", 6, 2, "15.50", False), ("Pavlova", 7, 3, "17.45", False), ("Alice Mutton", 7, 6, "39.00", True),
    ("Carnarvon Tigers", 7, 8, "62.50", False), ("Teatime Chocolate Biscuits", 8, 3, "9.20", False),
    ("Sir Rodney's Marmalade", 8, 3, "81.00", False), ("Sir Rodney's Scones", 8, 3, "10.00", False),
    ("Gustaf's Knäckebröd", 9, 5, "21.00", False), ("Tunnbröd", 9, 5, "9.00", False),
    ("Guaraná Fantástica", 10, 1, "4.50", True), ("NuNuCa Nuß-Nougat-Creme", 11, 3, "14.00", False),
    ("Gumbär Gummibärchen", 11, 3, "31.23", False), ("Schoggi Schokolade", 11, 3, "43.90", False),
    ("Rössle Sauerkraut", 12, 7, "45.60", True), ("Thüringer Rostbratwurst", 12, 6, "123.79", True),
    ("Nord-Ost Matjeshering", 13, 8, "25.89", False), ("Gorgonzola Telino", 14, 4, "12.50", False),
    ("Mascarpone Fabioli", 14, 4, "32.00", False), ("Geitost", 15, 4, "2.50", False),
    ("Sasquatch Ale", 16, 1, "14.00", False), ("Steeleye Stout", 16, 1, "18.00", False),
    ("Inlagd Sill", 17, 8, "19.00", False), ("Gravad lax", 17, 8, "26.00", False),
    ("Côte de Blaye", 18, 1, "263.50", False), ("Chartreuse verte", 18, 1, "18.00", False),
    ("Boston Crab Meat", 19, 8, "18.40", False), ("Jack's New England Clam Chowder", 19, 8, "9.65", False),
    ("Singaporean Hokkien Fried Mee", 20, 5, "14.00", True), ("Ipoh Coffee", 20, 1, "46.00", False),
    ("Gula Malacca", 20, 2, "19.45", False), ("Rogede sild", 21, 8, "9.50", False),
    ("Spegesild", 21, 8, "12.00", False),
    ("Zaanse koeken", 22, 3, "9.50", False), ("Chocolade", 22, 3, "12.75", False), ("Maxilaku", 23, 3, "20.00", False),
    ("Valkoinen suklaa", 23, 3, "16.25", False), ("Manjimup Dried Apples", 24, 7, "53.00", False),
    ("Filo Mix", 24, 5, "7.00", False), ("Perth Pasties", 24, 6, "32.80", True), ("Tourtière", 25, 6, "7.45", False),
    ("Pâté chinois", 25, 6, "24.00", False), ("Gnocchi di nonna Alice", 26, 5, "38.00", False),
    ("Ravioli Angelo", 26, 5, "19.50", False), ("Escargots de Bourgogne", 27, 8, "13.25", False),
    ("Raclette Courdavault", 28, 4, "55.00", False), ("Camembert Pierrot", 28, 4, "34.00", False),
    ("Sirop d'érable", 29, 2, "28.50", False), ("Tarte au sucre", 29, 3, "49.30", False),
    ("Vegie-spread", 7, 2, "43.90", False), ("Wimmers gute Semmelknödel", 12, 5, "33.25", False),
    ("Louisiana Fiery Hot Pepper Sauce", 2, 2, "21.05", False), ("Louisiana Hot Spiced Okra", 2, 2, "17.00", False),
    ("Laughing Lumberjack Lager", 16, 1, "14.00", False), ("Scottish Longbreads", 8, 3, "12.50", False),
    ("Gudbrandsdalsost", 15, 4, "36.00", False), ("Outback Lager", 7, 1, "15.00", False),
    ("Flotemysost", 15, 4, "21.50", False), ("Mozzarella di Giovanni", 14, 4, "34.80", False),
    ("Röd Kaviar", 17, 8, "15.00", False), ("Longlife Tofu", 4, 7, "10.00", False),
    ("Rhönbräu Klosterbier", 12, 1, "7.75", False), ("Lakkalikööri", 23, 1, "18.00", False),
    ("Original Frankfurter grüne Soße", 12, 2, "13.00", False),
]
CUSTOMERS = [  # code, company, contact, title, city, country, orders placed
    ("ALFKI", "Alfreds Futterkiste", "Maria Anders", "Sales Representative", "Berlin", "Germany", 12),
    ("ANATR", "Ana Trujillo Emparedados y helados", "Ana Trujillo", "Owner", "México D.F.", "Mexico", 8),
    ("ANTON", "Antonio Moreno Taquería", "Antonio Moreno", "Owner", "México D.F.", "Mexico", 14),
    ("AROUT", "Around the Horn", "Thomas Hardy", "Sales Representative", "London", "UK", 26),
    ("BERGS", "Berglunds snabbköp", "Christina Berglund", "Order Administrator", "Luleå", "Sweden", 36),
    ("BLAUS", "Blauer See Delikatessen", "Hanna Moos", "Sales Representative", "Mannheim", "Germany", 14),
    ("BLONP", "Blondesddsl père et fils", "Frédérique Citeaux", "Marketing Manager", "Strasbourg", "France", 22),
    ("BOLID", "Bólido Comidas preparadas", "Martín Sommer", "Owner", "Madrid", "Spain", 6),
    ("BONAP", "Bon app'", "Laurence Lebihan", "Owner", "Marseille", "France", 34),
    ("BOTTM", "Bottom-Dollar Markets", "Elizabeth Lincoln", "Accounting Manager", "Tsawassen", "Canada", 28),
    ("BSBEV", "B's Beverages", "Victoria Ashworth", "Sales Representative", "London", "UK", 20),
    ("CACTU", "Cactus Comidas para llevar", "Patricio Simpson", "Sales Agent", "Buenos Aires", "Argentina", 13),
    ("CHOPS", "Chop-suey Chinese", "Yang Wang", "Owner", "Bern", "Switzerland", 16),
    ("COMMI", "Comércio Mineiro", "Pedro Afonso", "Sales Associate", "São Paulo", "Brazil", 10),
    ("DRACD", "Drachenblut Delikatessen", "Sven Ottlieb", "Order Administrator", "Aachen", "Germany", 12),
    ("EASTC", "Eastern Connection", "Ann Devon", "Sales Agent", "London", "UK", 16),
    ("ERNSH", "Ernst Handel", "Roland Mendel", "Sales Manager", "Graz", "Austria", 60),
    ("FOLKO", "Folk och fä HB", "Maria Larsson", "Owner", "Bräcke", "Sweden", 38),
    ("FRANK", "Frankenversand", "Peter Franken", "Marketing Manager", "München", "Germany", 30),
    ("HUNGC", "Hungry Coyote Import Store", "Yoshi Latimer", "Sales Representative", "Elgin", "USA", 10),
    ("KOENE", "Königlich Essen", "Philip Cramer", "Sales Associate", "Brandenburg", "Germany", 28),
    ("LAZYK", "Lazy K Kountry Store", "John Steel", "Marketing Manager", "Walla Walla", "USA", 4),
    ("MORGK", "Morgenstern Gesundkost", "Alexander Feuer", "Marketing Assistant", "Leipzig", "Germany", 10),
    ("QUICK", "QUICK-Stop", "Horst Kloss", "Accounting Manager", "Cunewalde", "Germany", 56),
    ("RATTC", "Rattlesnake Canyon Grocery", "Paula Wilson", "Assistant Sales Representative", "Albuquerque",
     "USA", 36),
    ("SAVEA", "Save-a-lot Markets", "Jose Pavarotti", "Sales Representative", "Boise", "USA", 62),
    ("SEVES", "Seven Seas Imports", "Hari Kumar", "Sales Manager", "London", "UK", 18),
    ("TOMSP", "Toms Spezialitäten", "Karin Josephs", "Marketing Manager", "Münster", "Germany", 12),
    ("VAFFE", "Vaffeljernet", "Palle Ibsen", "Sales Manager", "Århus", "Denmark", 22),
    ("WANDK", "Die Wandernde Kuh", "Rita Müller", "Sales Representative", "Stuttgart", "Germany", 20),
    ("TORTU", "Tortuga Restaurante", "Miguel Angel Paolino", "Owner", "México D.F.", "Mexico", 20),
    ("WHITC", "White Clover Markets", "Karl Jablonski", "Owner", "Seattle", "USA", 28),
]
EMPLOYEES = [  # last, first, title, orders taken
    ("Davolio", "Nancy", "Sales Representative", 79), ("Fuller", "Andrew", "Vice President, Sales", 66),
    ("Leverling", "Janet", "Sales Representative", 150), ("Peacock", "Margaret", "Sales Representative", 100),
    ("Buchanan", "Steven", "Sales Manager", 30), ("Suyama", "Michael", "Sales Representative", 50),
    ("King", "Robert", "Sales Representative", 60), ("Callahan", "Laura", "Inside Sales Coordinator", 80),
    ("Dodsworth", "Anne", "Sales Representative", 30), ("Hughes", "Margaret", "Sales Representative", 96),
]
DISCOUNTS = [0.0] * 14 + [0.05, 0.1, 0.15, 0.2, 0.25]
FIRST_DAY = datetime(2023, 7, 1)


def _order_rows(rnd: random.Random) -> tuple[list[dict], list[dict]]:
    """Orders every day or two from July 2023 to the day before TODAY; lines of one to five products."""
    placed = [code for code, *_, n in CUSTOMERS for _ in range(n)]
    taken = [i for i, (*_, n) in enumerate(EMPLOYEES, start=1) for _ in range(n)]
    rnd.shuffle(placed)
    rnd.shuffle(taken)
    span = (datetime.combine(TODAY, datetime.min.time()) - FIRST_DAY).total_seconds() - 86400
    country = {code: (city, c) for code, _, _, _, city, c, _ in CUSTOMERS}
    order_rows, line_rows = [], []
    for n, (code, employee_id) in enumerate(zip(placed, taken, strict=True)):
        order_id = FIRST_ORDER + n
        at = FIRST_DAY + timedelta(seconds=int(span * n / len(placed)))
        at = at.replace(hour=9 + n % 8, minute=0, second=0)
        shipped = at + timedelta(days=rnd.randint(1, 12))
        city, ship_country = country[code]
        order_rows.append({
            "order_id": order_id, "customer_id": code, "employee_id": employee_id, "order_date": at,
            "required_date": at + timedelta(days=28),
            "shipped_date": None if shipped.date() >= TODAY or rnd.random() < 0.01 else shipped,
            "freight": Decimal(rnd.randint(50, 40000)) / 100, "ship_city": city, "ship_country": ship_country})
        for product_id in rnd.sample(range(1, len(PRODUCTS) + 1), rnd.randint(1, 5)):
            line_rows.append({"order_id": order_id, "product_id": product_id,
                              "unit_price": Decimal(PRODUCTS[product_id - 1][3]),
                              "quantity": rnd.choice([1, 2, 3, 5, 6, 8, 10, 12, 15, 20, 24, 25, 30, 35, 40, 50, 60]),
                              "discount": rnd.choice(DISCOUNTS)})
    return order_rows, line_rows


def create(url: str) -> None:
    """The tables and the seeded data set, on SQLite or PostgreSQL."""
    rnd = random.Random(SEED)
    order_rows, line_rows = _order_rows(rnd)
    rows: dict[sa.Table, list[dict[str, Any]]] = {
        categories: [{"category_id": i, "category_name": n, "description": d}
                     for i, (n, d) in enumerate(CATEGORIES, start=1)],
        suppliers: [{"supplier_id": i, "company_name": n, "city": c, "country": k}
                    for i, (n, c, k) in enumerate(SUPPLIERS, start=1)],
        products: [{"product_id": i, "product_name": n, "supplier_id": s, "category_id": c,
                    "quantity_per_unit": f"{rnd.choice([10, 12, 24, 48])} - {rnd.choice([100, 250, 500])} g",
                    "unit_price": Decimal(p), "units_in_stock": rnd.randint(0, 120),
                    "reorder_level": rnd.choice([0, 5, 10, 15, 25]), "discontinued": d}
                   for i, (n, s, c, p, d) in enumerate(PRODUCTS, start=1)],
        customers: [{"customer_id": code, "company_name": n, "contact_name": c, "contact_title": t, "city": city,
                     "country": k} for code, n, c, t, city, k, _ in CUSTOMERS],
        employees: [{"employee_id": i, "last_name": last, "first_name": first, "title": title,
                     "hire_date": date(2012 + i, 1 + i, 1)} for i, (last, first, title, _) in enumerate(EMPLOYEES, 1)],
        orders: order_rows,
        order_details: line_rows,
    }
    load(url, metadata, rows)


_SALES = "SUM(d.unit_price * d.quantity * (1 - d.discount))"
_LINES = "order_details d JOIN orders o ON o.order_id = d.order_id"
_MAY = "o.order_date >= '2025-05-01' AND o.order_date < '2025-06-01'"


def _orders(where: str) -> list[str]:
    """How many orders; then what they sold and their freight, figures an answer may add (freight is no sales:
    who sold the most is never told by it)."""
    return [f"SELECT COUNT(*) FROM orders o WHERE {where}",
            f"SELECT {_SALES} FROM {_LINES} WHERE {where}", f"SELECT SUM(o.freight) FROM orders o WHERE {where}"]


def _lines(where: str) -> list[str]:
    """What order lines sold, how many units, how many lines."""
    return [f"SELECT {e} FROM {_LINES} WHERE {where}" for e in (_SALES, "SUM(d.quantity)", "COUNT(*)")]


def _top_products(n: int) -> list[str]:
    return [f"SELECT p.product_name FROM products p JOIN order_details d ON d.product_id = p.product_id "
            f"GROUP BY p.product_id, p.product_name ORDER BY SUM(d.quantity) DESC, p.product_id LIMIT 1 OFFSET {k}"
            for k in range(n)]


def _of_company(name: str) -> str:
    return f"o.customer_id = (SELECT customer_id FROM customers WHERE company_name = '{name}')"


_TOP_EMPLOYEE = (f"SELECT o.employee_id FROM {_LINES} GROUP BY o.employee_id ORDER BY {_SALES} DESC LIMIT 1")
_TOP_CUSTOMER = (f"SELECT o.customer_id FROM {_LINES} GROUP BY o.customer_id ORDER BY {_SALES} DESC LIMIT 1")
_GERMANY_MAY = ("o.ship_country = 'Germany' AND o.shipped_date >= '2025-05-01' AND o.shipped_date < '2025-06-01'")
_LAST_WEEK = "o.order_date >= '2025-06-09' AND o.order_date < '2025-06-16'"
_IN_2024 = "o.order_date >= '2024-01-01' AND o.order_date < '2025-01-01'"
_IN_2023 = "o.order_date >= '2023-01-01' AND o.order_date < '2024-01-01'"
_CHAI = "d.product_id = (SELECT product_id FROM products WHERE product_name = 'Chai')"


def _products_in(category: str) -> str:
    return (f"SELECT COUNT(*) FROM products p JOIN categories c ON c.category_id = p.category_id "
            f"WHERE c.category_name = '{category}'")


QUESTIONS = [
    Question("around_the_horn", "How many orders did Around the Horn place?",
             _orders(_of_company("Around the Horn"))[:1], "count_by_entity_name",
             may_state=_orders(_of_company("Around the Horn"))[1:]),
    Question("ernst_ja", "Ernst Handelの注文件数は？", _orders(_of_company("Ernst Handel"))[:1], "count_by_entity_name",
             may_state=_orders(_of_company("Ernst Handel"))[1:]),
    Question("chai_units", "How many units of Chai have we sold?", _lines(_CHAI)[1:2], "sum_lines",
             may_state=_lines(_CHAI)[::2]),
    Question("top_employee", "Which employee sold the most?",
             [f"SELECT last_name FROM employees WHERE employee_id = ({_TOP_EMPLOYEE})"], "top_entity",
             may_state=_orders(f"o.employee_id = ({_TOP_EMPLOYEE})")[:2]),
    Question("top_products", "Top 5 products by quantity sold", _top_products(5), "top_entity"),
    Question("biggest_customer", "who is our biggest customer by sales?",
             [f"SELECT company_name FROM customers WHERE customer_id = ({_TOP_CUSTOMER})"], "top_entity",
             may_state=_orders(f"o.customer_id = ({_TOP_CUSTOMER})")[:2]),
    Question("priciest_product", "what's our most expensive product?",
             ["SELECT product_name FROM products ORDER BY unit_price DESC LIMIT 1"], "top_entity",
             may_state=["SELECT MAX(unit_price) FROM products"]),
    Question("top_country_ja", "注文がいちばん多い国は？",
             ["SELECT ship_country FROM orders GROUP BY ship_country ORDER BY COUNT(*) DESC LIMIT 1"], "top_entity",
             may_state=["SELECT COUNT(*) FROM orders GROUP BY ship_country ORDER BY COUNT(*) DESC LIMIT 1"]),
    Question("beverages", "How many products are in the Beverages category?", [_products_in("Beverages")],
             "count_in_category"),
    Question("seafood_ja", "シーフードの商品は何品？", [_products_in("Seafood")], "count_in_category"),
    Question("discontinued_ja", "販売中止になった商品はいくつ？",
             ["SELECT COUNT(*) FROM products WHERE discontinued = TRUE"], "count_in_category"),
    Question("uk_customers", "how many customers in the UK", ["SELECT COUNT(*) FROM customers WHERE country = 'UK'"],
             "count_in_category"),
    Question("products_ja", "商品は何種類？", ["SELECT COUNT(*) FROM products"], "count"),
    Question("customers", "How many customers do we have?", ["SELECT COUNT(*) FROM customers"], "count"),
    Question("suppliers_ja", "仕入先は何社ありますか", ["SELECT COUNT(*) FROM suppliers"], "count"),
    Question("germany_shipped", "orders shipped to Germany last month", _orders(_GERMANY_MAY)[:1], "list_filtered",
             may_state=_orders(_GERMANY_MAY)[1:]),
    Question("not_shipped", "Which orders haven't shipped yet?", _orders("o.shipped_date IS NULL")[:1],
             "list_filtered", may_state=_orders("o.shipped_date IS NULL")[1:]),
    Question("germany_customers_ja", "ドイツの顧客を一覧で",
             ["SELECT COUNT(*) FROM customers WHERE country = 'Germany'"], "list_filtered"),
    Question("orders_last_month_ja", "先月の注文件数は？", _orders(_MAY)[:1], "total_in_period",
             may_state=_orders(_MAY)[1:]),
    Question("orders_last_week_ja", "先週の注文は何件？", _orders(_LAST_WEEK)[:1], "total_in_period",
             may_state=_orders(_LAST_WEEK)[1:]),
    Question("freight_2024", "total freight in 2024", _orders(_IN_2024)[2:], "total_in_period",
             may_state=_orders(_IN_2024)[:1]),
    Question("freight_2023", "and in 2023?", _orders(_IN_2023)[2:], "follow_up", follow_up="freight_2024",
             may_state=_orders(_IN_2023)[:1]),
    Question("sales_last_month_ja", "先月の売上合計は？", _lines(_MAY)[:1], "sum_lines",
             may_state=[*_lines(_MAY)[1:], *_orders(_MAY)[:1]]),
    Question("order_10250", "What did order 10250 come to?", _lines("o.order_id = 10250")[:1], "sum_lines",
             may_state=[*_lines("o.order_id = 10250")[1:], "SELECT freight FROM orders WHERE order_id = 10250"]),
    Question("alfki_orders_ja", "ALFKIの注文は何件？", _orders("o.customer_id = 'ALFKI'")[:1], "per_entity_key",
             may_state=_orders("o.customer_id = 'ALFKI'")[1:]),
    Question("alfki_total_ja", "その合計金額は？", _orders("o.customer_id = 'ALFKI'")[1:2], "follow_up",
             follow_up="alfki_orders_ja",
             may_state=[*_orders("o.customer_id = 'ALFKI'")[::2], *_lines("o.customer_id = 'ALFKI'")[1:]]),
    Question("supplier_5", "show me the products from supplier 5",
             ["SELECT COUNT(*) FROM products WHERE supplier_id = 5"], "per_entity_key"),
]


def traps(url: str) -> None:
    """Two Margarets who together (not apart) outsell the top employee; 40 products or more; orders not shipped."""
    margaret = ("SELECT SUM(d.unit_price * d.quantity * (1 - d.discount)) FROM order_details d "
                "JOIN orders o ON o.order_id = d.order_id JOIN employees e ON e.employee_id = o.employee_id "
                "GROUP BY e.employee_id, e.first_name HAVING e.first_name = 'Margaret' "
                "ORDER BY e.employee_id LIMIT 1 OFFSET {}")
    one, other = scalar(url, margaret.format(0)), scalar(url, margaret.format(1))
    top = scalar(url, "SELECT MAX(s) FROM (SELECT SUM(d.unit_price * d.quantity * (1 - d.discount)) AS s "
                      "FROM order_details d JOIN orders o ON o.order_id = d.order_id GROUP BY o.employee_id) x")
    assert max(one, other) < top < one + other
    assert scalar(url, "SELECT COUNT(*) FROM products") >= 40
    assert scalar(url, "SELECT COUNT(*) FROM orders WHERE shipped_date IS NULL") > 0
