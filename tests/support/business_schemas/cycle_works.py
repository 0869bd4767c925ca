"""A bicycle maker's sales database in the PascalCase style of the SQL Server samples (AdventureWorks-like).

Tables and columns are named as SQL Server shops name them: ProductCategory, ProductSubcategory, Product
(ProductNumber 'BK-M68B-42', ListPrice, StandardCost, Weight, DaysToManufacture), Customer (CustomerID from
11000), SalesTerritory, SalesPerson (BusinessEntityID), SalesOrderHeader (OrderDate, DueDate, ShipDate,
Status, OnlineOrderFlag, SubTotal, TaxAmt, Freight, TotalDue) and SalesOrderDetail (OrderQty, UnitPrice,
UnitPriceDiscount, LineTotal), with a ModifiedDate and a rowguid on most tables. SQLAlchemy quotes the
mixed-case names, so on PostgreSQL they are quoted identifiers ("SalesOrderHeader"."OrderDate"); the figures
below quote them, which SQLite accepts too. On PostgreSQL the columns carry the samples' descriptions as
COMMENTs (the Status codes among them); SQLite has none.

What a careless draft gets wrong is in the data:
- ListPrice, StandardCost, UnitPrice, UnitPriceDiscount, Weight, DaysToManufacture, SalesQuota, Bonus and
  CommissionPct are per-row values, never summed (lines of several units and lines at a discount make
  SUM(UnitPrice) differ from the money sold; bikes sold before 2025 at an older price make ListPrice times
  units differ from it too);
- two customers called Shannon (Shannon Carlson 11009, Shannon Wang 11017) who together, not apart,
  outspend the top customer;
- subcategory 'Mountain Bikes' beside 'Mountain Frames' (and products called Mountain... in Handlebars,
  Socks, Tires and Tubes, Bottles and Cages): a substring match on "Mountain" is broader than the question;
  category 'Bikes' beside subcategories 'Bike Racks' and 'Bike Stands';
- SubTotal + TaxAmt + Freight = TotalDue on every order: two money totals an order has;
- orders not shipped yet have ShipDate NULL (the last days' orders, and a few backordered ones);
- Status is a numeric code (1 in process, 2 approved, 3 backordered, 4 rejected, 5 shipped, 6 cancelled;
  the data holds 1, 2, 3 and 5), named only in the PostgreSQL comments;
- ModifiedDate is never the period of a question: a price correction on 2025-05-14 touched many older
  orders, so the orders modified last month are not last month's orders; DueDate (OrderDate + 12 days)
  is not the order's day either.

How the questions are read: "sales", "売上", "revenue" and "how much did X spend" are SubTotal (the
sum of the lines' LineTotal: goods sold, before tax and freight), by OrderDate. A right answer may also
state TotalDue beside it (what the customer owes with tax and freight, which staff also call the order's
amount), the sums of TaxAmt and Freight (the other money totals of the same orders), and how many orders
and order lines the figure adds up. Sales of a product or a category are the sum of LineTotal of its
lines. A count of orders counts every order whatever its status unless the question names one; "not
shipped yet" is ShipDate NULL; "backordered" is Status 3. An order's month is its OrderDate. "Orders a
salesperson handled" are the orders whose SalesPersonID is theirs (online orders have none).
"Best-selling by units" ranks products by SUM(OrderQty).
"""

from __future__ import annotations

import random
import uuid
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

import sqlalchemy as sa

from . import Question, load, scalar

TODAY = date(2025, 6, 18)  # a Wednesday: last month is May 2025, the month before April; last year 2024
SEED = 20250617
_FIRST_ORDER, _LAST_ORDER = date(2023, 7, 1), date(2025, 6, 17)
_PRICE_FIX = datetime(2025, 5, 14, 9, 12, 0)  # the correction that touched older orders' ModifiedDate

metadata = sa.MetaData()
MONEY = sa.Numeric(10, 2)


def _guid() -> sa.Column:
    return sa.Column("rowguid", sa.Uuid, nullable=False,
                     comment="ROWGUIDCOL number uniquely identifying the record. Used to support a merge "
                             "replication sample.")


def _modified() -> sa.Column:
    return sa.Column("ModifiedDate", sa.DateTime, nullable=False,
                     comment="Date and time the record was last updated.")


ProductCategory = sa.Table(
    "ProductCategory", metadata,
    sa.Column("ProductCategoryID", sa.Integer, primary_key=True, autoincrement=False,
              comment="Primary key for ProductCategory records."),
    sa.Column("Name", sa.String(50), nullable=False, unique=True, comment="Category description."),
    _guid(), _modified(),
    comment="High-level product categorization.")
ProductSubcategory = sa.Table(
    "ProductSubcategory", metadata,
    sa.Column("ProductSubcategoryID", sa.Integer, primary_key=True, autoincrement=False,
              comment="Primary key for ProductSubcategory records."),
    sa.Column("ProductCategoryID", sa.Integer, sa.ForeignKey("ProductCategory.ProductCategoryID"), nullable=False,
              comment="Product category identification number. Foreign key to ProductCategory.ProductCategoryID."),
    sa.Column("Name", sa.String(50), nullable=False, unique=True, comment="Subcategory description."),
    _guid(), _modified(),
    comment="Product subcategories. See ProductCategory table.")
Product = sa.Table(
    "Product", metadata,
    sa.Column("ProductID", sa.Integer, primary_key=True, autoincrement=False,
              comment="Primary key for Product records."),
    sa.Column("Name", sa.String(50), nullable=False, unique=True, comment="Name of the product."),
    sa.Column("ProductNumber", sa.String(25), nullable=False, unique=True,
              comment="Unique product identification number."),
    sa.Column("Color", sa.String(15), comment="Product color."),
    sa.Column("StandardCost", MONEY, nullable=False, comment="Standard cost of the product."),
    sa.Column("ListPrice", MONEY, nullable=False, comment="Selling price."),
    sa.Column("Size", sa.String(5), comment="Product size."),
    sa.Column("Weight", sa.Numeric(8, 2), comment="Product weight."),
    sa.Column("DaysToManufacture", sa.Integer, nullable=False,
              comment="Number of days required to manufacture the product."),
    sa.Column("ProductSubcategoryID", sa.Integer, sa.ForeignKey("ProductSubcategory.ProductSubcategoryID"),
              comment="Product is a member of this product subcategory. Foreign key to "
                      "ProductSubCategory.ProductSubCategoryID."),
    sa.Column("SellStartDate", sa.DateTime, nullable=False, comment="Date the product was available for sale."),
    sa.Column("SellEndDate", sa.DateTime, comment="Date the product was no longer available for sale."),
    _guid(), _modified(),
    comment="Products sold or used in the manfacturing of sold products.")
SalesTerritory = sa.Table(
    "SalesTerritory", metadata,
    sa.Column("TerritoryID", sa.Integer, primary_key=True, autoincrement=False,
              comment="Primary key for SalesTerritory records."),
    sa.Column("Name", sa.String(50), nullable=False, unique=True, comment="Sales territory description"),
    sa.Column("CountryRegionCode", sa.String(3), nullable=False, comment="ISO standard country or region code."),
    sa.Column("Group", sa.String(50), nullable=False, comment="Geographic area to which the sales territory belong."),
    _guid(), _modified(),
    comment="Sales territory lookup table.")
SalesPerson = sa.Table(
    "SalesPerson", metadata,
    sa.Column("BusinessEntityID", sa.Integer, primary_key=True, autoincrement=False,
              comment="Primary key for SalesPerson records."),
    sa.Column("FirstName", sa.String(50), nullable=False, comment="First name of the person."),
    sa.Column("LastName", sa.String(50), nullable=False, comment="Last name of the person."),
    sa.Column("TerritoryID", sa.Integer, sa.ForeignKey("SalesTerritory.TerritoryID"),
              comment="Territory currently assigned to. Foreign key to SalesTerritory.SalesTerritoryID."),
    sa.Column("SalesQuota", MONEY, comment="Projected yearly sales."),
    sa.Column("Bonus", MONEY, nullable=False, comment="Bonus due if quota is met."),
    sa.Column("CommissionPct", sa.Numeric(6, 4), nullable=False, comment="Commision percent received per sale."),
    _guid(), _modified(),
    comment="Sales representative current information.")
Customer = sa.Table(
    "Customer", metadata,
    sa.Column("CustomerID", sa.Integer, primary_key=True, autoincrement=False, comment="Primary key."),
    sa.Column("FirstName", sa.String(50), nullable=False, comment="First name of the person."),
    sa.Column("LastName", sa.String(50), nullable=False, comment="Last name of the person."),
    sa.Column("EmailAddress", sa.String(50), comment="E-mail address for the person."),
    sa.Column("TerritoryID", sa.Integer, sa.ForeignKey("SalesTerritory.TerritoryID"),
              comment="ID of the territory in which the customer is located. Foreign key to "
                      "SalesTerritory.SalesTerritoryID."),
    sa.Column("AccountNumber", sa.String(10), nullable=False, unique=True,
              comment="Unique number identifying the customer assigned by the accounting system."),
    _guid(), _modified(),
    comment="Current customer information.")
SalesOrderHeader = sa.Table(
    "SalesOrderHeader", metadata,
    sa.Column("SalesOrderID", sa.Integer, primary_key=True, autoincrement=False, comment="Primary key."),
    sa.Column("RevisionNumber", sa.Integer, nullable=False,
              comment="Incremental number to track changes to the sales order over time."),
    sa.Column("OrderDate", sa.DateTime, nullable=False, comment="Dates the sales order was created."),
    sa.Column("DueDate", sa.DateTime, nullable=False, comment="Date the order is due to the customer."),
    sa.Column("ShipDate", sa.DateTime, comment="Date the order was shipped to the customer."),
    sa.Column("Status", sa.SmallInteger, nullable=False,
              comment="Order current status. 1 = In process; 2 = Approved; 3 = backordered; 4 = Rejected; "
                      "5 = Shipped; 6 = Cancelled"),
    sa.Column("OnlineOrderFlag", sa.Boolean, nullable=False,
              comment="0 = Order placed by sales person. 1 = Order placed online by customer."),
    sa.Column("SalesOrderNumber", sa.String(25), nullable=False, unique=True,
              comment="Unique sales order identification number."),
    sa.Column("PurchaseOrderNumber", sa.String(25), comment="Customer purchase order number reference."),
    sa.Column("CustomerID", sa.Integer, sa.ForeignKey("Customer.CustomerID"), nullable=False, index=True,
              comment="Customer identification number. Foreign key to Customer.BusinessEntityID."),
    sa.Column("SalesPersonID", sa.Integer, sa.ForeignKey("SalesPerson.BusinessEntityID"), index=True,
              comment="Sales person who created the sales order. Foreign key to SalesPerson.BusinessEntityID."),
    sa.Column("TerritoryID", sa.Integer, sa.ForeignKey("SalesTerritory.TerritoryID"),
              comment="Territory in which the sale was made. Foreign key to SalesTerritory.SalesTerritoryID."),
    sa.Column("SubTotal", MONEY, nullable=False,
              comment="Sales subtotal. Computed as SUM(SalesOrderDetail.LineTotal)for the appropriate "
                      "SalesOrderID."),
    sa.Column("TaxAmt", MONEY, nullable=False, comment="Tax amount."),
    sa.Column("Freight", MONEY, nullable=False, comment="Shipping cost."),
    sa.Column("TotalDue", MONEY, nullable=False,
              comment="Total due from customer. Computed as Subtotal + TaxAmt + Freight."),
    sa.Column("Comment", sa.String(128), comment="Sales representative comments."),
    _guid(), _modified(),
    comment="General sales order information.")
SalesOrderDetail = sa.Table(
    "SalesOrderDetail", metadata,
    sa.Column("SalesOrderID", sa.Integer, sa.ForeignKey("SalesOrderHeader.SalesOrderID"), primary_key=True,
              autoincrement=False,
              comment="Primary key. Foreign key to SalesOrderHeader.SalesOrderID."),
    sa.Column("SalesOrderDetailID", sa.Integer, primary_key=True, autoincrement=False,
              comment="Primary key. One incremental unique number per product sold."),
    sa.Column("CarrierTrackingNumber", sa.String(25), comment="Shipment tracking number supplied by the shipper."),
    sa.Column("OrderQty", sa.Integer, nullable=False, comment="Quantity ordered per product."),
    sa.Column("ProductID", sa.Integer, sa.ForeignKey("Product.ProductID"), nullable=False, index=True,
              comment="Product sold to customer. Foreign key to Product.ProductID."),
    sa.Column("UnitPrice", MONEY, nullable=False, comment="Selling price of a single product."),
    sa.Column("UnitPriceDiscount", sa.Numeric(4, 2), nullable=False, comment="Discount amount."),
    sa.Column("LineTotal", MONEY, nullable=False,
              comment="Per product subtotal. Computed as UnitPrice * (1 - UnitPriceDiscount) * OrderQty."),
    _guid(), _modified(),
    comment="Individual products associated with a specific sales order. See SalesOrderHeader.")

# --- the data ------------------------------------------------------------------------------------------
_CATEGORIES = ["Bikes", "Components", "Clothing", "Accessories"]
_SUBCATEGORIES = [  # name, category
    ("Mountain Bikes", 1), ("Road Bikes", 1), ("Touring Bikes", 1),
    ("Handlebars", 2), ("Mountain Frames", 2), ("Road Frames", 2), ("Wheels", 2),
    ("Caps", 3), ("Gloves", 3), ("Jerseys", 3), ("Shorts", 3), ("Socks", 3),
    ("Bike Racks", 4), ("Bike Stands", 4), ("Bottles and Cages", 4), ("Cleaners", 4), ("Fenders", 4),
    ("Helmets", 4), ("Hydration Packs", 4), ("Lights", 4), ("Tires and Tubes", 4),
]
# name, number, colour, list price, subcategory, weight, popularity (how often a line is of it), most per line
_PRODUCTS = [
    ("Mountain-100 Silver, 38", "BK-M82S-38", "Silver", "3399.99", "Mountain Bikes", "20.35", 3, 1),
    ("Mountain-100 Black, 42", "BK-M82B-42", "Black", "3374.99", "Mountain Bikes", "20.77", 3, 1),
    ("Mountain-200 Black, 38", "BK-M68B-38", "Black", "2294.99", "Mountain Bikes", "23.35", 5, 1),
    ("Mountain-200 Silver, 42", "BK-M68S-42", "Silver", "2319.99", "Mountain Bikes", "23.77", 5, 1),
    ("Mountain-500 Black, 48", "BK-M18B-48", "Black", "539.99", "Mountain Bikes", "28.13", 6, 2),
    ("Road-150 Red, 62", "BK-R93R-62", "Red", "3578.27", "Road Bikes", "15.00", 4, 1),
    ("Road-250 Black, 44", "BK-R89B-44", "Black", "2443.35", "Road Bikes", "14.77", 4, 1),
    ("Road-550-W Yellow, 40", "BK-R64Y-40", "Yellow", "1120.49", "Road Bikes", "17.35", 4, 1),
    ("Road-650 Red, 48", "BK-R50R-48", "Red", "782.99", "Road Bikes", "19.22", 6, 2),
    ("Touring-1000 Blue, 46", "BK-T79U-46", "Blue", "2384.07", "Touring Bikes", "25.13", 3, 1),
    ("Touring-2000 Blue, 50", "BK-T44U-50", "Blue", "1214.85", "Touring Bikes", "27.90", 3, 1),
    ("Touring-3000 Yellow, 54", "BK-T18Y-54", "Yellow", "742.35", "Touring Bikes", "29.68", 3, 1),
    ("HL Mountain Handlebars", "HB-M918", None, "120.27", "Handlebars", None, 3, 2),
    ("ML Road Handlebars", "HB-R720", None, "61.92", "Handlebars", None, 3, 2),
    ("HL Mountain Frame - Black, 42", "FR-M94B-42", "Black", "1349.60", "Mountain Frames", "2.84", 2, 1),
    ("ML Mountain Frame - Black, 38", "FR-M63B-38", "Black", "348.76", "Mountain Frames", "2.73", 2, 1),
    ("LL Mountain Frame - Silver, 44", "FR-M21S-44", "Silver", "264.05", "Mountain Frames", "3.04", 2, 1),
    ("HL Road Frame - Red, 58", "FR-R92R-58", "Red", "1431.50", "Road Frames", "2.24", 2, 1),
    ("LL Road Frame - Black, 52", "FR-R38B-52", "Black", "337.22", "Road Frames", "2.50", 2, 1),
    ("HL Mountain Front Wheel", "FW-M928", "Black", "300.22", "Wheels", "1.36", 2, 2),
    ("LL Road Rear Wheel", "RW-R623", "Black", "112.57", "Wheels", "1.45", 2, 2),
    ("AWC Logo Cap", "CA-1098", "Multi", "8.99", "Caps", None, 8, 3),
    ("Full-Finger Gloves, M", "GL-F110-M", "Black", "37.99", "Gloves", None, 5, 2),
    ("Half-Finger Gloves, L", "GL-H102-L", "Black", "24.49", "Gloves", None, 5, 2),
    ("Long-Sleeve Logo Jersey, M", "LJ-0192-M", "Multi", "49.99", "Jerseys", None, 6, 2),
    ("Short-Sleeve Classic Jersey, L", "SJ-0194-L", "Yellow", "53.99", "Jerseys", None, 5, 2),
    ("Men's Sports Shorts, M", "SH-M897-M", "Black", "59.99", "Shorts", None, 4, 2),
    ("Mountain Bike Socks, M", "SO-B909-M", "White", "9.50", "Socks", None, 5, 3),
    ("Hitch Rack - 4-Bike", "RA-H123", None, "120.00", "Bike Racks", None, 2, 1),
    ("All-Purpose Bike Stand", "ST-1401", None, "159.00", "Bike Stands", None, 2, 1),
    ("Water Bottle - 30 oz.", "WB-H098", None, "4.99", "Bottles and Cages", None, 14, 4),
    ("Mountain Bottle Cage", "BC-M005", None, "9.99", "Bottles and Cages", None, 6, 2),
    ("Road Bottle Cage", "BC-R205", None, "8.99", "Bottles and Cages", None, 5, 2),
    ("Bike Wash - Dissolver", "CL-9009", None, "7.95", "Cleaners", None, 4, 2),
    ("Fender Set - Mountain", "FE-6654", None, "21.98", "Fenders", None, 4, 1),
    ("Sport-100 Helmet, Red", "HL-U509-R", "Red", "34.99", "Helmets", None, 9, 2),
    ("Sport-100 Helmet, Black", "HL-U509", "Black", "34.99", "Helmets", None, 8, 2),
    ("Sport-100 Helmet, Blue", "HL-U509-B", "Blue", "34.99", "Helmets", None, 8, 2),
    ("Hydration Pack - 70 oz.", "HY-1023-70", "Silver", "54.99", "Hydration Packs", None, 4, 1),
    ("Taillights - Battery-Powered", "LT-T990", None, "13.99", "Lights", None, 4, 2),
    ("Headlights - Weatherproof", "LT-H903", None, "44.99", "Lights", None, 3, 1),
    ("Patch Kit/8 Patches", "PK-7098", None, "2.29", "Tires and Tubes", None, 7, 3),
    ("Mountain Tire Tube", "TT-M928", None, "4.99", "Tires and Tubes", None, 7, 3),
    ("Road Tire Tube", "TT-R982", None, "3.99", "Tires and Tubes", None, 6, 3),
    ("HL Mountain Tire", "TI-M823", None, "35.00", "Tires and Tubes", None, 4, 2),
]
_TERRITORIES = [  # name, country, group, how many customers
    ("Northwest", "US", "North America", 18), ("Northeast", "US", "North America", 8),
    ("Central", "US", "North America", 8), ("Southwest", "US", "North America", 20),
    ("Southeast", "US", "North America", 8), ("Canada", "CA", "North America", 10),
    ("France", "FR", "Europe", 10), ("Germany", "DE", "Europe", 8), ("Australia", "AU", "Pacific", 12),
    ("United Kingdom", "GB", "Europe", 8),
]
_SALES_PEOPLE = [  # id, first, last, territory, quota, bonus, commission
    (274, "Stephen", "Jiang", None, None, "0.00", "0.0000"),
    (275, "Michael", "Blythe", 2, "300000.00", "4100.00", "0.0120"),
    (276, "Linda", "Mitchell", 4, "250000.00", "2000.00", "0.0150"),
    (277, "Jillian", "Carson", 3, "250000.00", "2500.00", "0.0150"),
    (278, "Garrett", "Vargas", 6, "250000.00", "500.00", "0.0100"),
    (279, "Tsvi", "Reiter", 5, "300000.00", "6700.00", "0.0100"),
    (280, "Pamela", "Ansman-Wolfe", 1, "250000.00", "5000.00", "0.0100"),
    (281, "Shu", "Ito", 4, "250000.00", "3550.00", "0.0100"),
    (282, "José", "Saraiva", 6, "250000.00", "5000.00", "0.0150"),
    (283, "David", "Campbell", 1, "250000.00", "3500.00", "0.0120"),
    (284, "Tete", "Mensa-Annan", 1, "300000.00", "3900.00", "0.0190"),
    (285, "Syed", "Abbas", None, None, "0.00", "0.0000"),
    (286, "Lynn", "Tsoflias", 9, "250000.00", "5650.00", "0.0180"),
    (287, "Amy", "Alberts", None, None, "0.00", "0.0000"),
    (288, "Rachel", "Valdez", 8, "250000.00", "75.00", "0.0180"),
    (289, "Jae", "Pak", 10, "250000.00", "5150.00", "0.0200"),
    (290, "Ranjit", "Varkey Chudukatil", 7, "250000.00", "985.00", "0.0160"),
]
# The first customers as the samples have them (CustomerID 11000 on), with their territory; the rest are drawn.
_KNOWN_CUSTOMERS = [
    ("Jon", "Yang", 9), ("Eugene", "Huang", 9), ("Ruben", "Torres", 9), ("Christy", "Zhu", 9),
    ("Elizabeth", "Johnson", 9), ("Julio", "Ruiz", 9), ("Janet", "Alvarez", 9), ("Marco", "Mehta", 9),
    ("Rob", "Verhoff", 9), ("Shannon", "Carlson", 1), ("Jacquelyn", "Suarez", 9), ("Curtis", "Lu", 9),
    ("Lauren", "Walker", 4), ("Ian", "Jenkins", 4), ("Sydney", "Bennett", 1), ("Chloe", "Young", 4),
    ("Wyatt", "Hill", 4), ("Shannon", "Wang", 4), ("Clarence", "Rai", 1), ("Luke", "Lal", 4),
]
_FIRST_NAMES = ["Alexander", "Abigail", "Blake", "Brianna", "Caleb", "Cassandra", "Dalton", "Destiny", "Edward",
                "Ebony", "Fernando", "Gabrielle", "Gavin", "Hailey", "Isaiah", "Jasmine", "Kaitlyn", "Kevin",
                "Latoya", "Marcus", "Nathan", "Nicole", "Olivia", "Pedro", "Rachel", "Seth", "Tamara", "Trevor",
                "Victoria", "Xavier", "Yolanda", "Zachary", "Dominic", "Erin", "Meghan", "Colin", "Adriana",
                "Bryce", "Dana", "Franklin"]
_LAST_NAMES = ["Anderson", "Baker", "Coleman", "Diaz", "Edwards", "Flores", "Garcia", "Hughes", "Kumar", "Lopez",
               "Martin", "Nelson", "Ortega", "Perry", "Ramirez", "Sanchez", "Simmons", "Taylor", "Turner",
               "Vance", "Ward", "Xu", "Zhang", "Murphy", "Russell", "Price", "Foster", "Gonzales", "Henderson",
               "Jai", "Shan", "Moreno", "Navarro", "Rubio", "Blanco", "Dubois", "Leclerc", "Schmidt", "Weber"]
_BIG_SPENDERS = {11012: 22, 11009: 13, 11017: 13}  # Lauren Walker the most; the two Shannons together more
_FRANCE = 7


def _cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _stamp(day: date) -> datetime:
    return datetime(day.year, day.month, day.day)


def _customers(rnd: random.Random) -> list[dict]:
    people = list(_KNOWN_CUSTOMERS)
    taken = {(f, la) for f, la, _ in people}
    for territory, (_, _, _, many) in enumerate(_TERRITORIES, start=1):
        for _ in range(many - sum(t == territory for _, _, t in _KNOWN_CUSTOMERS)):
            while (name := (rnd.choice(_FIRST_NAMES), rnd.choice(_LAST_NAMES))) in taken:
                pass
            taken.add(name)
            people.append((*name, territory))
    rows = []
    for n, (first, last, territory) in enumerate(people):
        cid = 11000 + n
        rows.append({"CustomerID": cid, "FirstName": first, "LastName": last,
                     "EmailAddress": f"{first.lower()}{n % 90}@adventure-works.com", "TerritoryID": territory,
                     "AccountNumber": f"AW{cid:08d}", "rowguid": uuid.UUID(int=rnd.getrandbits(128), version=4),
                     "ModifiedDate": _stamp(date(2023, 1, 1) + timedelta(days=rnd.randrange(900)))})
    return rows


def _products(rnd: random.Random) -> list[dict]:
    subcategory = {name: i for i, (name, _) in enumerate(_SUBCATEGORIES, start=1)}
    rows = []
    for i, (name, number, colour, price, sub, weight, _, _) in enumerate(_PRODUCTS, start=680):
        list_price = Decimal(price)
        bike = number.startswith("BK-")
        rows.append({"ProductID": i, "Name": name, "ProductNumber": number, "Color": colour,
                     "StandardCost": _cents(list_price * Decimal(rnd.choice(["0.55", "0.58", "0.6", "0.62"]))),
                     "ListPrice": list_price, "Size": number.rsplit("-", 1)[1] if bike or ", " in name else None,
                     "Weight": Decimal(weight) if weight else None,
                     "DaysToManufacture": 4 if bike else 1 if number[:2] in ("FR", "FW", "RW", "HB") else 0,
                     "ProductSubcategoryID": subcategory[sub],
                     "SellStartDate": _stamp(date(2021, 7, 1) if rnd.random() < 0.7 else date(2022, 7, 1)),
                     "SellEndDate": None, "rowguid": uuid.UUID(int=rnd.getrandbits(128), version=4),
                     "ModifiedDate": _stamp(date(2024, 3, 11))})
    return rows


def _price(product: dict, day: date) -> Decimal:
    """The unit price on a day: bikes cost less before the price list of 2025-01-01."""
    if product["ProductNumber"].startswith("BK-") and day < date(2025, 1, 1):
        return _cents(product["ListPrice"] * Decimal("0.95"))
    return product["ListPrice"]


def _orders(rnd: random.Random, customers: list[dict], products: list[dict]) -> tuple[list[dict], list[dict]]:
    weights = [_BIG_SPENDERS.get(c["CustomerID"], rnd.choice([1, 1, 2, 3])) for c in customers]
    sellers = {t: [p[0] for p in _SALES_PEOPLE if p[3] == t] for t in range(1, len(_TERRITORIES) + 1)}
    popularity = [p[6] for p in _PRODUCTS]
    bikes = [i for i, p in enumerate(_PRODUCTS) if p[1].startswith("BK-")]
    headers: list[dict] = []
    lines: list[dict] = []
    day = _FIRST_ORDER
    while day <= _LAST_ORDER:
        for _ in range(rnd.choice([0, 1, 1, 1, 2])):
            customer = rnd.choices(customers, weights=weights)[0]
            big = customer["CustomerID"] in _BIG_SPENDERS
            online = rnd.random() < 0.6
            order_id = 43659 + len(headers)
            chosen = []
            for _ in range(rnd.randint(1, 4)):  # by popularity, each product once an order
                chosen.append(rnd.choices([i for i in range(len(_PRODUCTS)) if i not in chosen],
                                          weights=[w for i, w in enumerate(popularity) if i not in chosen])[0])
            if big and not any(i in bikes for i in chosen):
                chosen[0] = rnd.choice([i for i in bikes if i not in chosen])
            if not big and rnd.random() < 0.5:
                chosen = [i for i in chosen if i not in bikes] or chosen
            subtotal = Decimal("0.00")
            for i in chosen:
                spec, product = _PRODUCTS[i], products[i]
                qty = rnd.randint(1, spec[7]) if rnd.random() < 0.55 else 1
                unit = _price(product, day)
                discount = Decimal(rnd.choice(["0.05", "0.10", "0.15"])) if not online and qty >= 2 else Decimal(
                    "0.00")
                line_total = _cents(unit * (1 - discount) * qty)
                subtotal += line_total
                lines.append({"SalesOrderID": order_id, "SalesOrderDetailID": len(lines) + 110562,
                              "CarrierTrackingNumber": None if online else f"{rnd.randrange(16**4):04X}-"
                                                                           f"{rnd.randrange(16**4):04X}-"
                                                                           f"{rnd.randrange(100):02d}",
                              "OrderQty": qty, "ProductID": product["ProductID"], "UnitPrice": unit,
                              "UnitPriceDiscount": discount, "LineTotal": line_total,
                              "rowguid": uuid.UUID(int=rnd.getrandbits(128), version=4),
                              "ModifiedDate": _stamp(day)})
            tax = _cents(subtotal * Decimal("0.08"))
            freight = _cents(subtotal * Decimal("0.025"))
            ready = day + timedelta(days=rnd.randint(2, 7))
            shipped: date | None = ready
            status = 5
            if ready >= TODAY:
                status, shipped = rnd.choice([1, 2]), None
            elif day >= date(2025, 5, 10) and rnd.random() < 0.15:
                status, shipped = 3, None
            modified = _stamp(shipped or day)
            if date(2024, 1, 1) <= day < date(2024, 9, 1) and rnd.random() < 0.6:
                modified = _PRICE_FIX + timedelta(minutes=rnd.randrange(180))
            seller = None if online else rnd.choice(sellers[customer["TerritoryID"]])
            headers.append({"SalesOrderID": order_id, "RevisionNumber": 8 if modified == _stamp(shipped or day) else 9,
                            "OrderDate": _stamp(day), "DueDate": _stamp(day + timedelta(days=12)),
                            "ShipDate": _stamp(shipped) if shipped else None, "Status": status,
                            "OnlineOrderFlag": online, "SalesOrderNumber": f"SO{order_id}",
                            "PurchaseOrderNumber": None if online else f"PO{rnd.randrange(10**10, 10**11)}",
                            "CustomerID": customer["CustomerID"], "SalesPersonID": seller,
                            "TerritoryID": customer["TerritoryID"], "SubTotal": subtotal, "TaxAmt": tax,
                            "Freight": freight, "TotalDue": subtotal + tax + freight,
                            "Comment": None, "rowguid": uuid.UUID(int=rnd.getrandbits(128), version=4),
                            "ModifiedDate": modified})
        day += timedelta(days=1)
    return headers, lines


def _data() -> dict[sa.Table, list[dict]]:
    rnd = random.Random(SEED)

    def guid() -> uuid.UUID:
        return uuid.UUID(int=rnd.getrandbits(128), version=4)

    categories = [{"ProductCategoryID": i, "Name": n, "rowguid": guid(), "ModifiedDate": _stamp(date(2021, 6, 1))}
                  for i, n in enumerate(_CATEGORIES, start=1)]
    subcategories = [{"ProductSubcategoryID": i, "ProductCategoryID": c, "Name": n, "rowguid": guid(),
                      "ModifiedDate": _stamp(date(2021, 6, 1))} for i, (n, c) in enumerate(_SUBCATEGORIES, start=1)]
    territories = [{"TerritoryID": i, "Name": n, "CountryRegionCode": c, "Group": g, "rowguid": guid(),
                    "ModifiedDate": _stamp(date(2022, 4, 30))} for i, (n, c, g, _) in enumerate(_TERRITORIES, 1)]
    people = [{"BusinessEntityID": i, "FirstName": f, "LastName": la, "TerritoryID": t,
               "SalesQuota": Decimal(q) if q else None, "Bonus": Decimal(b), "CommissionPct": Decimal(c),
               "rowguid": guid(), "ModifiedDate": _stamp(date(2024, 5, 23))}
              for i, f, la, t, q, b, c in _SALES_PEOPLE]
    customers = _customers(rnd)
    products = _products(rnd)
    headers, lines = _orders(rnd, customers, products)
    return {ProductCategory: categories, ProductSubcategory: subcategories, Product: products,
            SalesTerritory: territories, SalesPerson: people, Customer: customers, SalesOrderHeader: headers,
            SalesOrderDetail: lines}


def create(url: str) -> None:
    """The tables (with the samples' descriptions as comments on PostgreSQL) and the seeded data."""
    load(url, metadata, _data())


# --- the questions -----------------------------------------------------------------------------------
def _between(start: str, end: str, column: str = '"OrderDate"') -> str:
    return f"{column} >= '{start}' AND {column} < '{end}'"


_MAY = _between("2025-05-01", "2025-06-01")
_APRIL = _between("2025-04-01", "2025-05-01")
_MARCH = _between("2025-03-01", "2025-04-01")
_LAST_YEAR = _between("2024-01-01", "2025-01-01")
_TERRITORY = 'SELECT "TerritoryID" FROM "SalesTerritory" WHERE "Name" = \'{}\''


def _orders_of(where: str) -> list[str]:
    """How many orders, their sales (SubTotal), what is due on them (TotalDue), their tax and their freight."""
    return [f'SELECT {e} FROM "SalesOrderHeader" WHERE {where}'
            for e in ("COUNT(*)", 'SUM("SubTotal")', 'SUM("TotalDue")', 'SUM("TaxAmt")', 'SUM("Freight")')]


def _lines_of(where: str) -> str:
    """How many order lines the orders have."""
    return ('SELECT COUNT(*) FROM "SalesOrderDetail" WHERE "SalesOrderID" IN '
            f'(SELECT "SalesOrderID" FROM "SalesOrderHeader" WHERE {where})')


def _sales(where: str) -> tuple[list[str], list[str]]:
    """The sales of the orders (asked), and what a right answer may add: how many orders and lines it adds up,
    and the orders' other money totals (TotalDue, TaxAmt, Freight)."""
    count, subtotal, *others = _orders_of(where)
    return [subtotal], [count, _lines_of(where), *others]


def _count(where: str) -> tuple[list[str], list[str]]:
    """How many orders (asked), and what a right answer may add: their money totals."""
    count, *money = _orders_of(where)
    return [count], money


def _lines(where: str) -> list[str]:
    """The units sold, the money of the lines (LineTotal) and how many lines, of the lines that match."""
    return [f'SELECT {e} FROM "SalesOrderDetail" d JOIN "SalesOrderHeader" h ON h."SalesOrderID" = d."SalesOrderID" '
            f'JOIN "Product" p ON p."ProductID" = d."ProductID" WHERE {where}'
            for e in ('SUM(d."OrderQty")', 'SUM(d."LineTotal")', "COUNT(*)")]


def _in_subcategory(name: str) -> str:
    return ('SELECT COUNT(*) FROM "Product" p JOIN "ProductSubcategory" s '
            f'ON s."ProductSubcategoryID" = p."ProductSubcategoryID" WHERE s."Name" = \'{name}\'')


def _product_in(subcategory: str, offset: int) -> str:
    return ('SELECT p."Name" FROM "Product" p JOIN "ProductSubcategory" s '
            f'ON s."ProductSubcategoryID" = p."ProductSubcategoryID" WHERE s."Name" = \'{subcategory}\' '
            f'ORDER BY p."ProductID" LIMIT 1 OFFSET {offset}')


def _handled_by(first: str, last: str) -> str:
    return ('"SalesPersonID" = (SELECT "BusinessEntityID" FROM "SalesPerson" '
            f'WHERE "FirstName" = \'{first}\' AND "LastName" = \'{last}\')')


_BY_CUSTOMER = ('SELECT "CustomerID", SUM("SubTotal") AS sales, SUM("TotalDue") AS due, COUNT(*) AS n '
                'FROM "SalesOrderHeader" GROUP BY "CustomerID"')
_TOP_CUSTOMER = f'SELECT "CustomerID" FROM ({_BY_CUSTOMER}) x ORDER BY sales DESC LIMIT 1'
_BY_PRODUCT = ('SELECT "ProductID", SUM("OrderQty") AS units, SUM("LineTotal") AS money, COUNT(*) AS n '
               'FROM "SalesOrderDetail" GROUP BY "ProductID"')
_TOP_PRODUCT = f'SELECT "ProductID" FROM ({_BY_PRODUCT}) x ORDER BY units DESC LIMIT 1'
_BIKES = ('p."ProductSubcategoryID" IN (SELECT s."ProductSubcategoryID" FROM "ProductSubcategory" s '
          'JOIN "ProductCategory" c ON c."ProductCategoryID" = s."ProductCategoryID" WHERE c."Name" = \'Bikes\')')
_FRANCE_LAST_YEAR = f'"TerritoryID" = ({_TERRITORY.format("France")}) AND {_LAST_YEAR}'
_GERMANY_LAST_YEAR = f'"TerritoryID" = ({_TERRITORY.format("Germany")}) AND {_LAST_YEAR}'
_NOT_SHIPPED = '"ShipDate" IS NULL'
_OF_11005 = '"CustomerID" = 11005'


def _question(qid: str, say: str, figures: tuple[list[str], list[str]] | list[str], kind,
              follow_up: str | None = None) -> Question:
    """A question, its figures either a list (all asked) or a pair: those asked, those a right answer may add."""
    asked, allowed = figures if isinstance(figures, tuple) else (figures, [])
    return Question(qid, say, asked, kind, follow_up=follow_up, may_state=allowed)


QUESTIONS = [
    _question("cw_customers", "how many customers do we have", ['SELECT COUNT(*) FROM "Customer"'], "count"),
    _question("cw_customers_ja", "顧客数は？", ['SELECT COUNT(*) FROM "Customer"'], "count"),
    _question("cw_products", "How many products are there", ['SELECT COUNT(*) FROM "Product"'], "count"),
    _question("cw_products_ja", "製品は全部でいくつある？", ['SELECT COUNT(*) FROM "Product"'], "count"),
    _question("cw_salespeople_ja", "営業担当は何人いますか", ['SELECT COUNT(*) FROM "SalesPerson"'], "count"),
    _question("cw_helmets", "how many products in the Helmets subcategory?", [_in_subcategory("Helmets")],
              "count_in_category"),
    _question("cw_helmets_list_ja", "Helmetsの製品を一覧で",
              ([_product_in("Helmets", k) for k in range(3)], [_in_subcategory("Helmets")]), "list_filtered"),
    _question("cw_mountain_bikes_ja", "Mountain Bikes の製品は何種類？", [_in_subcategory("Mountain Bikes")],
              "count_in_category"),
    _question("cw_orders_last_month_ja", "先月の注文は何件？", _count(_MAY), "total_in_period"),
    _question("cw_online_last_month_ja", "そのうちオンライン注文は？",
              (_orders_of(f'{_MAY} AND "OnlineOrderFlag"')[:1],
               [*_orders_of(f'{_MAY} AND "OnlineOrderFlag"')[1:], *_orders_of(_MAY)[:1]]),
              "follow_up", follow_up="cw_orders_last_month_ja"),
    _question("cw_sales_last_month", "total sales last month?", _sales(_MAY), "total_in_period"),
    _question("cw_sales_april", "and the month before?", _sales(_APRIL), "follow_up",
              follow_up="cw_sales_last_month"),
    _question("cw_sales_march_ja", "2025年3月の売上はいくら？", _sales(_MARCH), "total_in_period"),
    _question("cw_top_customer", "Which customer spent the most?",
              ([f'SELECT c."LastName" FROM "Customer" c WHERE c."CustomerID" = ({_TOP_CUSTOMER})',
                f"SELECT MAX(sales) FROM ({_BY_CUSTOMER}) x"],
               [f"SELECT {e} FROM ({_BY_CUSTOMER}) x ORDER BY sales DESC LIMIT 1" for e in ("n", "due")]),
              "top_entity"),
    _question("cw_top_customer_ja", "いちばん買ってくれてるお客さんは誰？",
              ([f'SELECT c."LastName" FROM "Customer" c WHERE c."CustomerID" = ({_TOP_CUSTOMER})'],
               [f"SELECT {e} FROM ({_BY_CUSTOMER}) x ORDER BY sales DESC LIMIT 1" for e in ("sales", "n", "due")]),
              "top_entity"),
    _question("cw_best_product", "best selling product by units?",
              ([f'SELECT "Name" FROM "Product" WHERE "ProductID" = ({_TOP_PRODUCT})',
                f"SELECT MAX(units) FROM ({_BY_PRODUCT}) x"],
               [f"SELECT {e} FROM ({_BY_PRODUCT}) x ORDER BY units DESC LIMIT 1" for e in ("money", "n")]),
              "top_entity"),
    _question("cw_best_product_ja", "数量ベースで一番売れてる商品は？",
              ([f'SELECT "Name" FROM "Product" WHERE "ProductID" = ({_TOP_PRODUCT})'],
               [f"SELECT {e} FROM ({_BY_PRODUCT}) x ORDER BY units DESC LIMIT 1" for e in ("units", "money", "n")]),
              "top_entity"),
    _question("cw_orders_11005", "Show me the orders of customer 11005", _count(_OF_11005), "per_entity_key"),
    _question("cw_spent_11005_ja", "顧客11005の売上合計は？", _sales(_OF_11005), "per_entity_key"),
    _question("cw_linda_orders", "How many orders did Linda Mitchell handle?",
              _count(_handled_by("Linda", "Mitchell")), "count_by_entity_name"),
    _question("cw_jillian_orders_ja", "Jillian Carsonさんが担当した注文は何件？",
              _count(_handled_by("Jillian", "Carson")), "count_by_entity_name"),
    _question("cw_france_last_year", "sales in the France territory last year", _sales(_FRANCE_LAST_YEAR),
              "total_in_period"),
    _question("cw_germany_last_year_ja", "去年のドイツの注文は何件？", _count(_GERMANY_LAST_YEAR),
              "count_in_category"),
    _question("cw_not_shipped_ja", "まだ出荷されてない注文は何件？", _count(_NOT_SHIPPED), "count_in_category"),
    _question("cw_not_shipped_list", "list the orders not shipped yet", _count(_NOT_SHIPPED), "list_filtered"),
    _question("cw_backordered", "How many orders are backordered?", _count('"Status" = 3'), "count_in_category"),
    _question("cw_helmet_red_units_ja", "Sport-100 Helmet, Red は何個売れた？",
              (_lines("p.\"Name\" = 'Sport-100 Helmet, Red'")[:1],
               _lines("p.\"Name\" = 'Sport-100 Helmet, Red'")[1:]), "sum_lines"),
    _question("cw_road150_units", "how many Road-150 Red, 62 did we sell last year",
              (_lines(f"p.\"Name\" = 'Road-150 Red, 62' AND h.{_LAST_YEAR}")[:1],
               _lines(f"p.\"Name\" = 'Road-150 Red, 62' AND h.{_LAST_YEAR}")[1:]), "sum_lines"),
    _question("cw_bikes_sales_ja", "Bikesカテゴリの売上合計は？", (_lines(_BIKES)[1:2], _lines(_BIKES)[::2]),
              "sum_lines"),
]


def traps(url: str) -> None:
    """Each trap of the module docstring, in the data."""
    def one(sql: str):
        return scalar(url, sql)

    # per-row values never summed: summing UnitPrice or ListPrice x units is not the money sold
    assert one('SELECT COUNT(*) FROM "SalesOrderDetail" WHERE "OrderQty" > 1') > 0
    assert one('SELECT COUNT(*) FROM "SalesOrderDetail" WHERE "UnitPriceDiscount" > 0') > 0
    assert one('SELECT SUM("UnitPrice") FROM "SalesOrderDetail"') != one('SELECT SUM("LineTotal") FROM '
                                                                         '"SalesOrderDetail"')
    assert one('SELECT COUNT(*) FROM "SalesOrderDetail" d JOIN "Product" p ON p."ProductID" = d."ProductID" '
               'WHERE d."UnitPrice" <> p."ListPrice"') > 0
    assert one('SELECT COUNT(*) FROM "Product" WHERE "Weight" IS NULL') > 0
    assert one('SELECT COUNT(DISTINCT "DaysToManufacture") FROM "Product"') > 1
    assert one('SELECT COUNT(*) FROM "SalesPerson" WHERE "SalesQuota" IS NULL') > 0
    assert one('SELECT COUNT(DISTINCT "CommissionPct") FROM "SalesPerson"') > 1
    # two Shannons who together, not apart, outspend the top customer
    shannon = ('SELECT SUM(h."SubTotal") FROM "SalesOrderHeader" h JOIN "Customer" c '
               'ON c."CustomerID" = h."CustomerID" WHERE c."FirstName" = \'Shannon\' '
               'GROUP BY c."CustomerID" ORDER BY c."CustomerID" LIMIT 1 OFFSET {}')
    carlson, wang = one(shannon.format(0)), one(shannon.format(1))
    top = one(f"SELECT MAX(sales) FROM ({_BY_CUSTOMER}) x")
    assert one('SELECT COUNT(*) FROM "Customer" WHERE "FirstName" = \'Shannon\'') == 2
    assert carlson != wang and max(carlson, wang) < top < carlson + wang
    assert one(f'SELECT "FirstName" FROM "Customer" WHERE "CustomerID" = ({_TOP_CUSTOMER})') != "Shannon"
    assert one(f'SELECT "CustomerID" FROM ({_BY_CUSTOMER}) x ORDER BY due DESC LIMIT 1') == one(_TOP_CUSTOMER)
    # Mountain Bikes beside Mountain Frames; Bikes beside Bike Racks and Bike Stands
    assert one('SELECT COUNT(*) FROM "ProductSubcategory" WHERE "Name" LIKE \'Mountain%\'') == 2
    assert one('SELECT COUNT(*) FROM "ProductSubcategory" WHERE "Name" LIKE \'Bike%\'') == 2
    assert one('SELECT COUNT(*) FROM "Product" WHERE "Name" LIKE \'%Mountain%\'') > one(
        _in_subcategory("Mountain Bikes"))
    # SubTotal + TaxAmt + Freight = TotalDue, and SubTotal is the sum of the lines
    assert one('SELECT COUNT(*) FROM "SalesOrderHeader" '
               'WHERE ABS("SubTotal" + "TaxAmt" + "Freight" - "TotalDue") > 0.001') == 0
    assert one('SELECT COUNT(*) FROM "SalesOrderHeader" h WHERE ABS("SubTotal" - (SELECT SUM(d."LineTotal") '
               'FROM "SalesOrderDetail" d WHERE d."SalesOrderID" = h."SalesOrderID")) > 0.001') == 0
    assert one('SELECT SUM("TotalDue") FROM "SalesOrderHeader"') > one('SELECT SUM("SubTotal") FROM '
                                                                       '"SalesOrderHeader"')
    # orders not shipped yet, with no ShipDate, in status 1 to 3; shipped ones in status 5
    assert one(f'SELECT COUNT(*) FROM "SalesOrderHeader" WHERE {_NOT_SHIPPED}') > 0
    assert one(f'SELECT COUNT(*) FROM "SalesOrderHeader" WHERE {_NOT_SHIPPED} AND "Status" = 3') > 0
    assert one(f'SELECT COUNT(*) FROM "SalesOrderHeader" WHERE {_NOT_SHIPPED} AND "Status" = 5') == 0
    assert one('SELECT COUNT(DISTINCT "Status") FROM "SalesOrderHeader"') == 4
    # ModifiedDate and DueDate are not the order's day: last month's orders are not the orders modified in it
    assert one(_orders_of(_MAY)[0]) != one(_orders_of(_between("2025-05-01", "2025-06-01", '"ModifiedDate"'))[0])
    assert one(_orders_of(_MAY)[0]) != one(_orders_of(_between("2025-05-01", "2025-06-01", '"DueDate"'))[0])
    assert one('SELECT COUNT(*) FROM "SalesOrderHeader" WHERE "OrderDate" >= \'2025-06-18\'') == 0
    # best seller by units is not the best seller by money
    assert one(_TOP_PRODUCT) != one(f'SELECT "ProductID" FROM ({_BY_PRODUCT}) x ORDER BY money DESC LIMIT 1')
